/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fs_*: a minimal FUSE server written against /dev/fuse (INIT, LOOKUP,
 * GETATTR, OPEN, READ, WRITE and the replies nobody waits for), for the
 * suites whose lists sit on files a server answers late or never
 * (t_fuse.c, t_isolation.c).  One thread per mount; several mounts may
 * run at once.  Every file is FS_FILE_SIZE bytes of zeros unless a slow
 * file's callback says otherwise, mode 0666, and the mount is allow_other:
 * processes of any uid may map them.
 */
#ifndef TH_FUSESRV_H
#define TH_FUSESRV_H

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>

#define FS_FILE_SIZE	(64 * 1024)
#define FS_MAX_FILES	8

/* How a file's requests are answered. */
enum fs_mode {
	FS_PROMPT,		/* READ and WRITE answered at once */
	FS_NO_READ,		/* READ never answered */
	FS_NO_WRITE,		/* READ answered, WRITE never */
	FS_SLOW,		/* READ of offset 0 answered by fs_srv.slow() */
	FS_SLOW_NO_WRITE,	/* the same, and WRITE never answered */
};

struct fs_srv {
	/* set before fs_start() */
	const char *mnt;		/* mount point, made and removed here */
	bool sync_read;			/* no FUSE_ASYNC_READ in the INIT reply */
	bool no_readahead;		/* max_readahead 0 in the INIT reply */
	bool drop_cache;		/* no FOPEN_KEEP_CACHE: an open drops the file's pages */
	struct {
		const char *name;
		enum fs_mode mode;
	} file[FS_MAX_FILES];		/* up to the first name NULL */
	/* FS_SLOW*: fill @page (the file's first page) for a READ, may sleep */
	void (*slow)(struct fs_srv *s, char *page, size_t len);
	void *slow_arg;
	int slow_file;			/* during slow(): the file, index in @file */
	/* state */
	int fd;				/* /dev/fuse, -1 when not running: initialise it so */
	pthread_t thread;
	bool mounted;
	volatile int reads, writes;	/* taken and never answered */
	volatile bool answer_writes;	/* FS_NO_WRITE answers WRITEs while set */
	pid_t holder;			/* fs_hold_write()'s child, 0 if none */
	volatile int slow_reads;	/* READs of an FS_SLOW file */
	char *rbuf, *wbuf, *data;	/* the server thread's, heap (not TLS: threads stay small) */
};

/*
 * Mount @s at s->mnt and serve it.  0, or -1 with a line on stderr when
 * there is no /dev/fuse or the mount fails (the caller skips).
 */
int fs_start(struct fs_srv *s);
/*
 * Abort the connection (the FUSE control filesystem): every request
 * fails, stuck waiters run, the server's thread ends.
 */
void fs_abort(struct fs_srv *s);
/* Abort, unmount, join, close; safe to call twice. */
void fs_stop(struct fs_srv *s);
/*
 * Make the server hold a WRITE of page @page of file @name (FS_NO_WRITE):
 * answer_writes is cleared, then a child (s->holder) closes @close_fd (if
 * >= 0), dirties the page's last word through a shared mapping and starts
 * its writeback.  0 once the server holds a WRITE, -1 if none came within
 * 5 s.  The child may wait behind that WRITE: fs_end_hold() (fs_stop()
 * calls it) kills and reaps it, after an fs_abort().
 */
int fs_hold_write(struct fs_srv *s, const char *name, unsigned int page, int close_fd);
void fs_end_hold(struct fs_srv *s);
/* "<mnt>/<name>", written into @buf. */
const char *fs_path(const struct fs_srv *s, const char *name, char *buf, size_t len);

#endif /* TH_FUSESRV_H */
