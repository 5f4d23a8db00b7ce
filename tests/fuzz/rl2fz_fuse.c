// SPDX-License-Identifier: GPL-2.0
/*
 * make fuzz, the hostile pages: the two FUSE mounts the controller serves
 * itself (tests/lib/fusesrv.c, one thread each) and what the controller
 * sees of each list page (rl2fz.h has the kinds):
 *
 *   RL2FZ_FUSE_PROMPT  "s" and "v" (shared and private mappings), "m"
 *                      (page 0 read synchronously: its READ is answered
 *                      with the program's page)
 *   RL2FZ_FUSE_STALL   "r" (READ never answered), "w0".."w3" (page 0 of
 *                      each, READ answered with the program's page, WRITE
 *                      never); remounted after every program that used it,
 *                      which aborts the old connection: the fault-ins left
 *                      stuck there end, no account keeps a place taken into
 *                      the next program, and every page is fresh again
 *
 * The controller writes a program's page of "s" or "v" into the file,
 * and reads every page back after the death: through its own shared
 * mapping, those of "wN" with pread() (read_w() says why).  The pages of "m" and "wN" it serves instead (served[]): their
 * READ gets the program's page plus the owner's words (the fills, with
 * the TID the child stored first), so nobody stores into them before the
 * walk but the child, once: it touches its "wN" pages, and after it is
 * ready the controller starts their writeback (fz_fuse_arm()), whose
 * WRITE is never answered.  A store of anybody's before that could meet a
 * writeback the kernel started on its own (FUSE's dirty limit is strict)
 * and wait for good.  Nobody touches "r", nor "m" before the death (the
 * walk's worker reads it).
 *
 * Every open() of a file of ours drops the file's cached pages (drop_cache:
 * no FOPEN_KEEP_CACHE) and writes back the dirty ones first: so each file is
 * opened while it is clean (the servers open those of the prompt mount
 * once, at their start, the others when a program first maps them after
 * a remount; we open "wN" when we stage a program that uses it), and "m"
 * on purpose, before each program that reads it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "fusesrv.h"
#include "rl2fz_int.h"

#define NPAGES	(RL2FZ_PAGES - RL2FZ_PROT_FIRST)	/* the hostile pages: 6..9 */

static void m_read(struct fs_srv *s, char *page, size_t len);
static void w_read(struct fs_srv *s, char *page, size_t len);

static struct fs_srv prompt = {
	.fd = -1,
	.mnt = RL2FZ_FUSE_PROMPT,
	.drop_cache = true,
	.file = { { "s", FS_PROMPT }, { "v", FS_PROMPT }, { "m", FS_SLOW } },
	.slow = m_read,
};

static struct fs_srv stall = {
	.fd = -1,
	.mnt = RL2FZ_FUSE_STALL,
	.drop_cache = true,
	.file = { { "r", FS_NO_READ }, { "w0", FS_SLOW_NO_WRITE }, { "w1", FS_SLOW_NO_WRITE },
		  { "w2", FS_SLOW_NO_WRITE }, { "w3", FS_SLOW_NO_WRITE } },
	.slow = w_read,
};

static uint8_t *map_s, *map_v, *map_m;			/* our shared mappings */
static int fd_w[NPAGES] = { -1, -1, -1, -1 };		/* "wN": never mapped (read_w()) */
static const char *const name_w[NPAGES] = { "w0", "w1", "w2", "w3" };
static bool up, stall_used;

/* The pages we serve (RANDOM, NOWRITE), by list page - 6, and "m"'s. */
static pthread_mutex_t served_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint8_t page[RL2FZ_PAGE];
	struct { uint32_t off, val, self; } fill[RL2FZ_FILLS];
	unsigned int nfill;
} served[NPAGES];
static int m_page_of = -1;

/* What a READ of served page @k gets: the page, and the owner's words. */
static void served_copy(unsigned int k, uint8_t *to)
{
	uint32_t tid = __atomic_load_n(&ctl->tids[0], __ATOMIC_SEQ_CST);

	pthread_mutex_lock(&served_lock);
	memcpy(to, served[k].page, RL2FZ_PAGE);
	for (unsigned int i = 0; i < served[k].nfill; i++) {
		uint32_t v = served[k].fill[i].val | (served[k].fill[i].self ? tid : 0);

		memcpy(to + served[k].fill[i].off, &v, 4);
	}
	pthread_mutex_unlock(&served_lock);
}

static void m_read(struct fs_srv *s, char *page, size_t len)
{
	if (len >= RL2FZ_PAGE && m_page_of >= 0)
		served_copy(m_page_of, (uint8_t *)page);
}

static void w_read(struct fs_srv *s, char *page, size_t len)
{
	if (len >= RL2FZ_PAGE && s->slow_file >= 1 && s->slow_file <= NPAGES)
		served_copy(s->slow_file - 1, (uint8_t *)page);
}

/* Map file @name of @s (shared). */
static uint8_t *map_file(struct fs_srv *s, const char *name, size_t len)
{
	char path[128];
	int fd = open(fs_path(s, name, path, sizeof(path)), O_RDWR | O_CLOEXEC);
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static void close_stall(void)
{
	for (unsigned int k = 0; k < NPAGES; k++) {
		if (fd_w[k] >= 0)
			close(fd_w[k]);
		fd_w[k] = -1;
	}
}

/*
 * A "wN" page as it is now, read with pread(), never through a mapping of
 * ours: a walk's fault-in that met the stuck WRITE waits in
 * fuse_page_mkwrite() with the page locked until the connection aborts,
 * and a fault on our own mapping would wait for that lock (the whole
 * fuzzer, silently).  A read() of a cached, up-to-date page takes none.
 */
static void read_w(uint8_t *to, unsigned int pg)
{
	ssize_t n = pread(fd_w[pg - RL2FZ_PROT_FIRST], to, RL2FZ_PAGE, 0);

	if (n != RL2FZ_PAGE) {
		fprintf(stderr, "rl2fz: reading back page %u (\"w%u\") gave %zd\n", pg,
			pg - RL2FZ_PROT_FIRST, n);
		memset(to, 0xee, RL2FZ_PAGE);	/* the check reports it */
	}
}

static void servers_reopen(void)
{
	ctl->fuse_ok = up;
	ctl->srv[0].fuse_gen++;
	ctl->srv[1].fuse_gen++;
}

bool fz_fuse_start(void)
{
	if (fs_start(&prompt) || fs_start(&stall))
		goto fail;
	map_s = map_file(&prompt, "s", FS_FILE_SIZE);
	map_v = map_file(&prompt, "v", FS_FILE_SIZE);
	map_m = map_file(&prompt, "m", RL2FZ_PAGE);
	if (!map_s || !map_v || !map_m)
		goto fail;
	up = true;
	servers_reopen();
	return true;
fail:
	fprintf(stderr, "rl2fz: no FUSE mounts: the lists stay in the arena's memfd\n");
	fz_fuse_stop();
	return false;
}

bool fz_fuse_up(void)
{
	return up;
}

void fz_fuse_stop(void)
{
	up = false;
	fs_stop(&stall);
	fs_stop(&prompt);
}

bool fz_stall_kind(unsigned int k)
{
	return k == RL2FZ_K_NOREAD || k == RL2FZ_K_NOREAD_PRIV || k == RL2FZ_K_NOWRITE;
}

bool fz_observable(unsigned int pg)
{
	switch (ctl->kind[pg]) {
	case RL2FZ_K_PRIVATE: case RL2FZ_K_RANDOM_PRIV:
	case RL2FZ_K_NOREAD: case RL2FZ_K_NOREAD_PRIV:
		return false;
	}
	return true;
}

/* The file page that backs list page @pg, as we map it; NULL if none. */
static uint8_t *backing(unsigned int pg)
{
	size_t k = pg - RL2FZ_PROT_FIRST;

	switch (pg >= RL2FZ_PROT_FIRST ? ctl->kind[pg] : RL2FZ_K_RW) {
	case RL2FZ_K_SHARED: return map_s + k * RL2FZ_PAGE;
	case RL2FZ_K_PRIVATE: return map_v + k * RL2FZ_PAGE;
	case RL2FZ_K_RANDOM: case RL2FZ_K_RANDOM_PRIV: return map_m;
	}
	return NULL;
}

static bool is_served(unsigned int pg)
{
	unsigned int k = ctl->kind[pg];

	return k == RL2FZ_K_RANDOM || k == RL2FZ_K_RANDOM_PRIV || k == RL2FZ_K_NOWRITE;
}

void fz_fuse_stage(void)
{
	char path[128];
	int fd;

	m_page_of = -1;
	for (unsigned int pg = RL2FZ_PROT_FIRST; pg < RL2FZ_PAGES; pg++) {
		unsigned int k = pg - RL2FZ_PROT_FIRST;
		const uint8_t *src = arena + pg * RL2FZ_PAGE;

		stall_used |= fz_stall_kind(ctl->kind[pg]);
		if (!is_served(pg)) {
			if (backing(pg))
				memcpy(backing(pg), src, RL2FZ_PAGE);
			continue;
		}
		pthread_mutex_lock(&served_lock);
		memcpy(served[k].page, src, RL2FZ_PAGE);
		served[k].nfill = 0;
		for (unsigned int i = 0; i < ctl->nfill; i++)
			if (ctl->fill[i].off / RL2FZ_PAGE == pg) {
				served[k].fill[served[k].nfill].off = ctl->fill[i].off % RL2FZ_PAGE;
				served[k].fill[served[k].nfill].val = ctl->fill[i].val;
				served[k].fill[served[k].nfill++].self = ctl->fill[i].self;
			}
		pthread_mutex_unlock(&served_lock);
		if (ctl->kind[pg] == RL2FZ_K_NOWRITE) {
			/*
			 * Ours for its writeback and read_w(), opened while
			 * the file is clean (see above), once a remount.
			 */
			if (fd_w[k] < 0)
				fd_w[k] = open(fs_path(&stall, name_w[k], path, sizeof(path)),
					       O_RDWR | O_CLOEXEC);
			continue;
		}
		m_page_of = (int)k;
		/* an open drops the file's cached pages (no FOPEN_KEEP_CACHE) */
		fd = open(fs_path(&prompt, "m", path, sizeof(path)), O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
}

/*
 * The child touched its "wN" pages and is done storing: start their
 * writeback, whose WRITE is never answered.  From now on a store to such
 * a page waits in fuse_page_mkwrite() until the connection aborts.
 */
void fz_fuse_arm(void)
{
	for (unsigned int pg = RL2FZ_PROT_FIRST; pg < RL2FZ_PAGES; pg++)
		if (ctl->kind[pg] == RL2FZ_K_NOWRITE)
			sync_file_range(fd_w[pg - RL2FZ_PROT_FIRST], 0, RL2FZ_PAGE,
					SYNC_FILE_RANGE_WRITE);
}

/* @page plus the owner's words the fills put there (the child's view). */
static void add_fills(uint8_t *page, unsigned int pg)
{
	for (unsigned int i = 0; i < ctl->nfill; i++) {
		const struct rl2fz_fill *f = &ctl->fill[i];
		uint32_t v = f->val | (f->self ? ctl->tids[0] : 0);

		if (f->off / RL2FZ_PAGE == pg)
			memcpy(page + f->off % RL2FZ_PAGE, &v, 4);
	}
}

void fz_fuse_before(uint8_t *child, uint8_t *ours)
{
	memcpy(child, arena, RL2FZ_PROT_FIRST * RL2FZ_PAGE);
	for (unsigned int pg = RL2FZ_PROT_FIRST; pg < RL2FZ_PAGES; pg++) {
		uint8_t *c = child + pg * RL2FZ_PAGE, *src = backing(pg);

		if (is_served(pg))
			served_copy(pg - RL2FZ_PROT_FIRST, c);
		else if (ctl->kind[pg] == RL2FZ_K_NOREAD || ctl->kind[pg] == RL2FZ_K_NOREAD_PRIV)
			memset(c, 0x5a, RL2FZ_PAGE);	/* never read: given up */
		else
			memcpy(c, src ? src : arena + pg * RL2FZ_PAGE, RL2FZ_PAGE);
	}
	memcpy(ours, child, RL2FZ_PAGES * RL2FZ_PAGE);
	for (unsigned int pg = RL2FZ_PROT_FIRST; pg < RL2FZ_PAGES; pg++)
		if (ctl->kind[pg] == RL2FZ_K_PRIVATE)
			add_fills(child + pg * RL2FZ_PAGE, pg);
}

void fz_fuse_after(uint8_t *now, const uint8_t *ours)
{
	memcpy(now, arena, RL2FZ_PROT_FIRST * RL2FZ_PAGE);
	for (unsigned int pg = RL2FZ_PROT_FIRST; pg < RL2FZ_PAGES; pg++) {
		uint8_t *n = now + pg * RL2FZ_PAGE, *src = backing(pg);

		if (ctl->kind[pg] == RL2FZ_K_NOREAD || ctl->kind[pg] == RL2FZ_K_NOREAD_PRIV)
			memcpy(n, ours + pg * RL2FZ_PAGE, RL2FZ_PAGE);
		else if (ctl->kind[pg] == RL2FZ_K_NOWRITE)
			read_w(n, pg);
		else	/* "m": read now if the walk did not */
			memcpy(n, src ? src : arena + pg * RL2FZ_PAGE, RL2FZ_PAGE);
	}
}

void fz_fuse_reset(void)
{
	if (!up || !stall_used)
		return;
	stall_used = false;
	fs_abort(&stall);	/* first: whatever waits on the connection ends */
	close_stall();
	fs_stop(&stall);
	if (fs_start(&stall)) {
		fprintf(stderr, "rl2fz: remounting %s failed: no more hostile pages\n", stall.mnt);
		close_stall();
		up = false;
	}
	servers_reopen();
}
