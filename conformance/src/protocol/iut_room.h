/* iut_room.h — what an IUT's process tree can reach when the run holds a
 * signing key (DESIGN.md Wave 4, "the key not in the room";
 * conformance/README.md "Signing keys and the IUT").
 *
 * The runner reads nothing of a --sign-key file while an IUT lives: it signs
 * in a separate step once every IUT process is gone (cli/run.c), or not at
 * all (`isotrain-conform sign` after the run). What is left is the key's
 * path on the runner's command line and the file itself. When a key is
 * registered here, every IUT process starts (iut_keeper.c, inside its PID
 * namespace) in a mount namespace of its own where
 *   - /proc is a fresh mount for the IUT's PID namespace: the runner, its
 *     command line, descriptors and memory are not there to be named;
 *   - each hidden file (the key, under every name the mount table gives it)
 *     is covered by /dev/null;
 *   - the IUT holds no capability to undo either: as root the tree runs
 *     under the unprivileged uid/gid IUT_ROOM_UID (the key, mode 0600, is
 *     not its to read by any path); unprivileged, under the runner's own uid
 *     mapped in a user namespace, whose capabilities execve drops and whose
 *     mounts a nested namespace cannot unmount (they are locked).
 * Without a PID namespace (ISOTRAIN_CONFORM_CONTAIN=keeper, a kernel that
 * allows none) none of this holds, and `run --sign-key` is refused. */
#ifndef CONFORM_PROTOCOL_IUT_ROOM_H
#define CONFORM_PROTOCOL_IUT_ROOM_H

#include <stddef.h>

/* The uid and gid an IUT runs under when the runner is root and holds a key
 * ("nobody" on most Linux systems). */
enum { IUT_ROOM_UID = 65534, IUT_ROOM_GID = 65534 };

/* Hides path (a regular file, one hard link) from every IUT started from
 * now on. 0, or -1 with a message naming the file. */
int iut_room_hide(const char *path, char *err, size_t cap);
/* Whether anything is hidden (the room is in force). */
int iut_room_active(void);
/* In the IUT's process, in its new PID namespace and holding the
 * capabilities of its (user) namespace, before exec: the mount namespace,
 * the fresh /proc, the covers, the uid. 0, or -1 with a message. */
int iut_room_enter(char *err, size_t cap);
/* A directory the runner makes for the IUT to write in (the work
 * directory): handed to IUT_ROOM_UID when the IUT runs under it. */
void iut_room_give(const char *path);
/* One line for the run's output and the receipt: how the key is kept out of
 * the IUT's reach, or "" when no key is hidden. */
const char *iut_room_describe(void);

#endif
