/*
 * banks.c — how a shared buffer is stored and what its accesses cost: element
 * sizes, row-major indices, Triton's XOR swizzle and padding
 * (smem_storage_index), and the static bank-conflict counter
 * (smem_count_extra), which counts the extra shared-memory wavefronts of a
 * warp's accesses.  Pure functions of their arguments: smem.c uses them to
 * choose each exchange's storage and dot.c to choose a dot operand's.
 */
#include "tir.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int smem_elem_bytes(Type t) { return t.dtype == DT_PTR ? 8 : (dtype_bits(t.dtype) + 7) / 8; }

int smem_row_major(const int *shape, int rank, const int *c)
{
    int lin = 0;
    for (int d = 0; d < rank; d++)
        lin = lin * shape[d] + c[d];
    return lin;
}

int smem_padded(int lin, int pad_log2, int pad) { return pad ? lin + (lin >> pad_log2) * pad : lin; }

/* One warp-wide access of at most 4 bytes per lane: each lane touches one
 * word, and a bank's distinct words are its wavefronts.  byte[l]: lane l's
 * byte address, -1 inactive. */
static int narrow_wavefronts_extra(const int *byte)
{
    int words[32][32], nw[32] = {0}, worst = 1;
    for (int l = 0; l < 32; l++) {
        if (byte[l] < 0)
            continue;
        int word = byte[l] >> 2, bank = word & 31, j = 0;
        while (j < nw[bank] && words[bank][j] != word)
            j++;
        if (j == nw[bank]) {
            words[bank][nw[bank]++] = word;
            if (nw[bank] > worst)
                worst = nw[bank];
        }
    }
    return worst - 1;
}

/* Wider accesses go in phases of 128 bytes: half warps for 8 bytes, quarter
 * warps for 16; each phase costs a wavefront per distinct word of its busiest
 * bank. */
static int wavefronts_extra(const int *byte, int bytes)
{
    if (bytes <= 4)
        return narrow_wavefronts_extra(byte);
    int phase = 128 / bytes, extra = 0;
    for (int p0 = 0; p0 < 32; p0 += phase) {
        int words[32][64];
        int nw[32] = {0};
        int worst = 0;
        for (int l = p0; l < p0 + phase; l++) {
            if (byte[l] < 0)
                continue;
            for (int k = 0; k < bytes / 4; k++) {
                int word = (byte[l] >> 2) + k, bank = word & 31;
                bool seen = false;
                for (int j = 0; j < nw[bank]; j++)
                    seen |= words[bank][j] == word;
                if (!seen && nw[bank] < 64)
                    words[bank][nw[bank]++] = word;
            }
        }
        for (int b = 0; b < 32; b++)
            if (nw[b] > worst)
                worst = nw[b];
        if (worst > 1)
            extra += worst - 1;
    }
    return extra;
}

int smem_wavefronts_extra(const int *addr, int bytes)
{
    int byte[32];
    for (int l = 0; l < 32; l++)
        byte[l] = addr[l] < 0 ? -1 : addr[l] * bytes;
    return wavefronts_extra(byte, bytes);
}

bool smem_swizzle_none(SmemSwizzle s) { return s.max_phase <= 1; }

int smem_swizzle_col(SmemSwizzle s, int row, int col)
{
    if (smem_swizzle_none(s))
        return col;
    return ((col / s.vec) ^ ((row / s.per_phase) % s.max_phase)) * s.vec + col % s.vec;
}

int smem_storage_index(const SmemLayout *l, int lin)
{
    int row = lin >> l->row_log2, col = lin & ((1 << l->row_log2) - 1);
    int i = (row << l->row_log2) + smem_swizzle_col(l->swz, row, col);
    return smem_padded(i, l->pad_log2, l->pad);
}

/* Extra wavefronts of access `i` (32 lanes from lin[32 * i]). */
static int access_extra(const SmemLayout *l, const int *lin, int i, int access_elems)
{
    int byte[32];
    lin += 32 * i;
    for (int k = 0; k < 32; k++)
        byte[k] = lin[k] < 0 ? -1 : smem_storage_index(l, lin[k]) * l->elem_bytes;
    return wavefronts_extra(byte, access_elems * l->elem_bytes);
}

int smem_count_extra(const SmemLayout *l, const int *lin, int naccess, int access_elems, int limit)
{
    int total = 0;
    for (int i = 0; i < naccess && total <= limit; i++)
        total += access_extra(l, lin, i, access_elems);
    return total;
}
