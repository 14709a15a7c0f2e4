/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Decoding a function's first instruction, the one a uprobe replaces: the
 * x86-64 kernel emulates a few (a push, a 5-byte nop) and single-steps
 * every other one out of line, ~10 us per hit instead of ~1 us, which
 * xlprobe warns about when it attaches.
 */
#include <string.h>
#include "elfsym.h"

bool elfsym__needs_single_step(const uint8_t *c, size_t len)
{
	static const uint8_t endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	static const uint8_t nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

	if (len >= sizeof(nop5) && !memcmp(c, nop5, sizeof(nop5)))
		return false;
	if (len >= sizeof(endbr64) && !memcmp(c, endbr64, sizeof(endbr64))) {
		c += sizeof(endbr64);
		len -= sizeof(endbr64);
	}
	/* push %reg (0x50-0x57, REX.B 0x41 for r8-r15): emulated since Linux 4.18 */
	if (len >= 1 && c[0] >= 0x50 && c[0] <= 0x57)
		return false;
	return !(len >= 2 && c[0] == 0x41 && c[1] >= 0x50 && c[1] <= 0x57);
}
