/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The basics of user/lib: the one hash table (htab.c: every key found
 * under its id, the newest entry of a key wins, the bound said, keys forged
 * against plain FNV-1a spread all the same) and the one growable array
 * (xlp_grow, xlp_push in util.c).
 */
#include <errno.h>
#include "testlib.h"
#include "htab.h"
#include "util.h"

struct keys {
	char (*k)[16];
	const char *want;
};

static bool key_eq(const void *ctx, uint32_t id)
{
	const struct keys *ks = ctx;

	return !strcmp(ks->k[id - 1], ks->want);
}

static uint32_t find(struct htab *h, struct keys *ks, const char *key)
{
	ks->want = key;
	return htab__find(h, htab__hash(h, key, strlen(key)), key_eq, ks);
}

static int put(struct htab *h, struct keys *ks, uint32_t id)
{
	const char *key = ks->k[id - 1];

	ks->want = key;
	return htab__put(h, htab__hash(h, key, strlen(key)), id, key_eq, ks);
}

TEST(every_key_found_under_its_id_and_no_other)
{
	enum { N = 20000 };
	struct keys ks = {calloc(N, sizeof(*ks.k)), NULL};
	struct htab *h = htab__new(N);
	char absent[16];
	size_t bad = 0;

	REQUIRE(ks.k && h);
	for (uint32_t i = 0; i < N; i++) {
		snprintf(ks.k[i], sizeof(ks.k[i]), "key%u", i);
		REQUIRE(!put(h, &ks, i + 1));
	}
	CHECK(htab__len(h) == N, "%zu", htab__len(h));
	for (uint32_t i = 0; i < N; i++)
		bad += find(h, &ks, ks.k[i]) != i + 1;
	CHECK(!bad, "%zu keys not found under their id", bad);
	for (uint32_t i = 0; i < 1000; i++) {
		snprintf(absent, sizeof(absent), "nokey%u", i);
		bad += find(h, &ks, absent) != 0;
	}
	CHECK(!bad, "%zu absent keys found", bad);
	htab__clear(h);
	CHECK(!htab__len(h) && !find(h, &ks, "key7"), "cleared");
	htab__free(h);
	free(ks.k);
}

TEST(the_newest_entry_of_a_key_wins)
{
	struct keys ks = {calloc(3, sizeof(*ks.k)), NULL};
	struct htab *h = htab__new(10);

	REQUIRE(ks.k && h);
	strcpy(ks.k[0], "same");
	strcpy(ks.k[1], "other");
	strcpy(ks.k[2], "same");
	REQUIRE(!put(h, &ks, 1) && !put(h, &ks, 2) && !put(h, &ks, 3));
	CHECK(find(h, &ks, "same") == 3, "%u", find(h, &ks, "same"));
	CHECK(find(h, &ks, "other") == 2);
	CHECK(htab__len(h) == 2, "%zu", htab__len(h));
	CHECK(htab__put(h, 1, 0, NULL, NULL) == -EINVAL, "id 0 is none");
	htab__free(h);
	free(ks.k);
}

TEST(bounded_the_key_past_the_bound_refused)
{
	enum { MAX = 100 };
	struct keys ks = {calloc(MAX + 2, sizeof(*ks.k)), NULL};
	struct htab *h = htab__new(MAX), *none = htab__new(0);

	REQUIRE(ks.k && h && none);
	for (uint32_t i = 0; i < MAX + 2; i++)
		snprintf(ks.k[i], sizeof(ks.k[i]), "k%u", i);
	for (uint32_t i = 0; i < MAX; i++)
		REQUIRE(!put(h, &ks, i + 1));
	CHECK(put(h, &ks, MAX + 1) == -E2BIG, "one past the bound");
	CHECK(htab__len(h) == MAX);
	/* a key it holds can still take a newer entry */
	strcpy(ks.k[MAX + 1], ks.k[0]);
	CHECK(!put(h, &ks, MAX + 2) && find(h, &ks, "k0") == MAX + 2);
	CHECK(put(none, &ks, 1) == -E2BIG, "max 0");
	htab__free(h);
	htab__free(none);
}

/*
 * Keys a forger picks so that they all land in one slot of a 1024-slot
 * table (as a fixed hash would let anyone do): in another table, under its
 * own seed, they spread over the slots.
 */
TEST(keys_forged_against_one_table_spread_in_another)
{
	enum { N = 400, SLOTS = 1024 };
	struct htab *known = htab__new(N), *h = htab__new(N);
	static uint8_t seen[SLOTS];
	size_t forged = 0, distinct = 0;
	char key[32];

	REQUIRE(known && h);
	for (uint32_t i = 0; forged < N; i++) {
		snprintf(key, sizeof(key), "f%u", i);
		if ((htab__hash(known, key, strlen(key)) & (SLOTS - 1)) != 0)
			continue;
		forged++;
		distinct += !seen[htab__hash(h, key, strlen(key)) & (SLOTS - 1)]++;
	}
	/* 400 balls in 1024 bins fill about 330 of them; unseeded, one */
	CHECK(distinct > N / 2, "%zu slots of %d for %d forged keys", distinct, SLOTS, N);
	htab__free(known);
	htab__free(h);
}

TEST(grow_makes_room_however_far_the_index_jumps)
{
	uint32_t *a = NULL, v;
	size_t cap = 0, n = 0;

	REQUIRE(!xlp_grow((void **)&a, &cap, 0, sizeof(*a)) && cap >= 1);
	REQUIRE(!xlp_grow((void **)&a, &cap, 5000, sizeof(*a)) && cap > 5000, "%zu", cap);
	a[5000] = 7;
	CHECK(xlp_grow((void **)&a, &cap, SIZE_MAX / 2, 8) == -ENOMEM, "overflow said");
	CHECK(cap > 5000 && a[5000] == 7, "unchanged on failure");
	free(a);
	a = NULL;
	cap = 0;
	for (v = 0; v < 1000; v++)
		REQUIRE(!xlp_push((void **)&a, &n, &cap, sizeof(v), &v));
	CHECK(n == 1000 && a[0] == 0 && a[999] == 999, "%zu", n);
	free(a);
}

TEST_MAIN()
