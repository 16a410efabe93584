#ifndef IT_FPENV_FORCE_H
#define IT_FPENV_FORCE_H
/* Turns on FTZ (and DAZ where separate) for this thread; 0 on success, -1
 * where the ISA has no such mode that this file knows. Negative controls only. */
int it_fpenv_force_flush(void);
#endif
