/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The pprof profile's tables (export_pprof_int.h): strings, functions
 * (module, raw name), mappings (module and build) and locations, each
 * added once and known by its id, through maps keyed by what the traces
 * hold (the one seeded hash table, htab.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "demangle.h"
#include "export_pprof_int.h"
#include "htab.h"
#include "util.h"

/* ---- strings and keys ---- */

struct pp_want {
	const struct pp_map *m;
	const void *key;
	size_t len;
};

static bool key_eq(const void *ctx, uint32_t i)
{
	const struct pp_want *w = ctx;
	const struct pp_key *k = &w->m->keys[i - 1];

	return k->len == w->len && !memcmp(k->key, w->key, w->len);
}

/* The id of key in m, 0 when absent. */
static uint32_t map_find(const struct pp_map *m, const void *key, size_t len)
{
	uint32_t i;

	if (!m->h)
		return 0;
	i = htab__find(m->h, htab__hash(m->h, key, len), key_eq, &(struct pp_want){m, key, len});
	return i ? m->keys[i - 1].id : 0;
}

/* Adds key with id (absent: map_find said so): its copy, NULL on ENOMEM. */
static const char *map_add(struct pp_map *m, const void *key, size_t len, uint32_t id)
{
	struct pp_want w = {m, key, len};
	char *k;

	/* ids are 32-bit: the table's bound */
	if ((!m->h && !(m->h = htab__new(UINT32_MAX - 1))) ||
	    xlp_grow((void **)&m->keys, &m->cap, m->n, sizeof(*m->keys)) || !(k = malloc(len + 1)))
		return NULL;
	memcpy(k, key, len);
	k[len] = 0;
	m->keys[m->n] = (struct pp_key){k, len, id};
	if (htab__put(m->h, htab__hash(m->h, key, len), (uint32_t)m->n + 1, key_eq, &w)) {
		free(k);
		return NULL;
	}
	m->n++;
	return k;
}

void pp_map__free(struct pp_map *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->keys[i].key);
	free(m->keys);
	htab__free(m->h);
}

/* The string table index of s (0 is ""); 0 after an error too. */
uint32_t pp__str_id(struct pp *pp, const char *s)
{
	size_t len = strlen(s);
	uint32_t id;
	const char *k;

	if (!len || pp->err)
		return 0;
	id = map_find(&pp->strs, s, len);
	if (id)
		return id;
	if (xlp_grow((void **)&pp->str_list, &pp->cap_str_list, pp->strs.n, sizeof(char *)) ||
	    !(k = map_add(&pp->strs, s, len, (uint32_t)pp->strs.n + 1))) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->str_list[pp->strs.n - 1] = k; /* the map owns it */
	return (uint32_t)pp->strs.n;
}

/* ---- functions, mappings, locations ---- */

const char *pp__base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The header's function of this module and raw name (a marked one), or NULL. */
const struct xlp_func_info *pp__marked(const struct pp *pp, const char *module, const char *raw)
{
	for (uint32_t i = 0; i < pp->meta->nfuncs; i++) {
		const struct xlp_func_info *f = &pp->meta->funcs[i];

		if (f->binary && f->symbol && !strcmp(f->symbol, raw) &&
		    !strcmp(pp__base_name(f->binary), module))
			return f;
	}
	return NULL;
}

/* The header's binary whose basename is module, for its path and build-id. */
static const struct xlp_func_info *pp__binary_of(const struct pp *pp, const char *module)
{
	for (uint32_t i = 0; i < pp->meta->nfuncs; i++) {
		const struct xlp_func_info *f = &pp->meta->funcs[i];

		if (f->binary && !strcmp(pp__base_name(f->binary), module))
			return f;
	}
	return NULL;
}

uint32_t pp__mapping_id(struct pp *pp, const char *module)
{
	const struct xlp_func_info *b = pp__binary_of(pp, module);
	const char *file = b ? b->binary : module, *bid = b && b->build_id ? b->build_id : "";
	char key[2 * PATH_MAX];
	size_t len;
	uint32_t id;

	len = (size_t)snprintf(key, sizeof(key), "%s%c%s", file, 0, bid);
	if (len >= sizeof(key))
		len = sizeof(key) - 1;
	id = map_find(&pp->maps_by_key, key, len);
	if (id || pp->err)
		return id;
	if (xlp_grow((void **)&pp->maps, &pp->cap_maps, pp->nmaps, sizeof(*pp->maps)) ||
	    !map_add(&pp->maps_by_key, key, len, (uint32_t)pp->nmaps + 1)) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->maps[pp->nmaps] = (struct pp_mapping){pp__str_id(pp, file), pp__str_id(pp, bid)};
	return (uint32_t)++pp->nmaps;
}

uint32_t pp__fn_id(struct pp *pp, const char *module, const char *raw, const char *name)
{
	char key[2 * (DEMANGLE_MAX_IN + 64)];
	size_t len;
	uint32_t id;

	len = (size_t)snprintf(key, sizeof(key), "%s%c%s", module, 0, raw);
	if (len >= sizeof(key))
		len = sizeof(key) - 1;
	id = map_find(&pp->fns_by_key, key, len);
	if (id || pp->err)
		return id;
	if (xlp_grow((void **)&pp->fns, &pp->cap_fns, pp->nfns, sizeof(*pp->fns)) ||
	    !map_add(&pp->fns_by_key, key, len, (uint32_t)pp->nfns + 1)) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->fns[pp->nfns] =
		(struct pp_fn){pp__str_id(pp, name), pp__str_id(pp, raw), pp__str_id(pp, module)};
	return (uint32_t)++pp->nfns;
}

uint32_t pp__loc_id(struct pp *pp, uint32_t fn, uint32_t mapping, uint64_t address)
{
	struct pp_loc key = {fn, mapping, address};
	uint32_t id = map_find(&pp->locs_by_key, &key, sizeof(key));

	if (id || pp->err)
		return id;
	if (xlp_grow((void **)&pp->locs, &pp->cap_locs, pp->nlocs, sizeof(*pp->locs)) ||
	    !map_add(&pp->locs_by_key, &key, sizeof(key), (uint32_t)pp->nlocs + 1)) {
		pp->err = -ENOMEM;
		return 0;
	}
	pp->locs[pp->nlocs] = key;
	return (uint32_t)++pp->nlocs;
}

/* A location of a pseudo-frame ("[no user stack]", "[truncated]"). */
uint32_t pp__pseudo_loc(struct pp *pp, const char *name)
{
	return pp__loc_id(pp, pp__fn_id(pp, "", name, name), 0, 0);
}
