#!/bin/sh
# The reference CLI itself, through a script (checks P1's quoting).
exec "$IT_REF_CLI" "$@"
