#ifndef LR_ENCODE_CPU_H
#define LR_ENCODE_CPU_H

/*
 * Instruction sets hidden from labrun's dispatch: LABRUN_CPU_HIDE names
 * them, comma-separated ("avx512", "avx2"). A kernel that needs a hidden
 * one is not picked by 'auto' and is refused by --kernel, as on a CPU
 * without it, so the other paths can be tested and measured on a CPU that
 * has everything (docs/labrun.md).
 */
int lr_cpu_hidden(const char *isa);

#endif
