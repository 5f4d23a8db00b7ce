// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal FUSE server for the suites (fusesrv.h): one thread reads
 * requests from /dev/fuse and answers them, or keeps them forever, as each
 * file's mode says.  Files are FOPEN_NOFLUSH (5.16 on), so that a close
 * does not wait in fuse_flush() for a WRITE that is never answered.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "fusesrv.h"
#include "helpers.h"

#define FS_INO0		2	/* the first file's inode: 1 is the root */
#define FS_RBUF		(FUSE_MIN_READ_BUFFER + FS_FILE_SIZE)
#define FS_WBUF		(sizeof(struct fuse_out_header) + FS_FILE_SIZE)

static int fs_nfiles(const struct fs_srv *s)
{
	int n = 0;

	while (n < FS_MAX_FILES && s->file[n].name)
		n++;
	return n;
}

static void fs_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0666;
	a->nlink = 1;
	a->size = ino == FUSE_ROOT_ID ? 0 : FS_FILE_SIZE;
	a->blocks = a->size / 512;
	a->blksize = 4096;
}

static void fs_reply(struct fs_srv *s, uint64_t unique, int error,
		     const void *arg, size_t len)
{
	char *buf = s->wbuf;
	struct fuse_out_header *h = (void *)buf;

	h->len = sizeof(*h) + (error ? 0 : len);
	h->error = error;
	h->unique = unique;
	if (!error && len)
		memcpy(buf + sizeof(*h), arg, len);
	if (write(s->fd, buf, h->len) < 0 && errno != ENOENT)
		fprintf(stderr, "# fuse reply: %s\n", strerror(errno));
}

static enum fs_mode fs_mode_of(const struct fs_srv *s, uint64_t ino)
{
	int i = (int)ino - FS_INO0;

	return i >= 0 && i < fs_nfiles(s) ? s->file[i].mode : FS_PROMPT;
}

static void fs_read(struct fs_srv *s, struct fuse_in_header *in,
		    const struct fuse_read_in *r)
{
	char *data = s->data;
	size_t len = r->offset < FS_FILE_SIZE ? FS_FILE_SIZE - r->offset : 0;

	switch (fs_mode_of(s, in->nodeid)) {
	case FS_NO_READ:
		s->reads++;		/* never answered */
		return;
	case FS_SLOW:
	case FS_SLOW_NO_WRITE:
		memset(data, 0, FS_FILE_SIZE);
		if (r->offset == 0 && s->slow) {
			s->slow_reads++;
			s->slow_file = (int)in->nodeid - FS_INO0;
			s->slow(s, data, FS_FILE_SIZE);
		}
		break;
	default:
		memset(data, 0, FS_FILE_SIZE);
		break;
	}
	if (len > r->size)
		len = r->size;
	fs_reply(s, in->unique, 0, data + (r->offset < FS_FILE_SIZE ? r->offset : 0), len);
}

static void *fs_serve(void *arg)
{
	struct fs_srv *s = arg;
	char *buf = s->rbuf;

	for (;;) {
		struct fuse_in_header *in = (void *)buf;
		void *body = buf + sizeof(*in);
		ssize_t n = read(s->fd, buf, FS_RBUF);

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*in))
			return NULL;	/* ENODEV: aborted, unmounted */
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = body;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
					 ii->minor : FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = s->no_readahead ? 0 : ii->max_readahead,
				/* page faults read ahead in the background */
				.flags = s->sync_read ? 0 : FUSE_ASYNC_READ,
				.max_background = 16,
				.congestion_threshold = 12,
				.max_write = 4096,
				.time_gran = 1,
			};

			fs_reply(s, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o = { .generation = 1 };

			for (int i = 0; i < fs_nfiles(s); i++)
				if (!strcmp(body, s->file[i].name))
					o.nodeid = FS_INO0 + i;
			if (!o.nodeid) {
				fs_reply(s, in->unique, -ENOENT, NULL, 0);
				break;
			}
			fs_attr(&o.attr, o.nodeid);
			fs_reply(s, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o = { 0 };

			fs_attr(&o.attr, in->nodeid);
			fs_reply(s, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN: {
			/*
			 * A close must not wait for WRITEs (fuse_flush()), and an
			 * open must not drop the file's cached pages, which other
			 * processes map (unless the caller wants just that).
			 */
			struct fuse_open_out o = { .fh = 1, .open_flags = FOPEN_NOFLUSH };

			if (!s->drop_cache)
				o.open_flags |= FOPEN_KEEP_CACHE;

			fs_reply(s, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ:
			fs_read(s, in, body);
			break;
		case FUSE_WRITE: {
			struct fuse_write_in *w = body;
			struct fuse_write_out o = { .size = w->size };

			if ((fs_mode_of(s, in->nodeid) == FS_NO_WRITE ||
			     fs_mode_of(s, in->nodeid) == FS_SLOW_NO_WRITE) && !s->answer_writes)
				s->writes++;	/* never answered */
			else
				fs_reply(s, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break;		/* no reply expected */
		case FUSE_FLUSH:
		case FUSE_RELEASE:
		case FUSE_FSYNC:
			fs_reply(s, in->unique, 0, NULL, 0);
			break;
		default:
			fs_reply(s, in->unique, -ENOSYS, NULL, 0);
			break;
		}
	}
}

int fs_start(struct fs_srv *s)
{
	char opts[160];

	s->reads = s->writes = s->slow_reads = 0;
	s->holder = 0;
	s->mounted = false;
	s->rbuf = malloc(FS_RBUF);
	s->wbuf = malloc(FS_WBUF);
	s->data = malloc(FS_FILE_SIZE);
	if (!s->rbuf || !s->wbuf || !s->data) {
		fs_stop(s);
		return -1;
	}
	s->fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (s->fd < 0) {
		fprintf(stderr, "# /dev/fuse: %s\n", strerror(errno));
		fs_stop(s);
		return -1;
	}
	mkdir(s->mnt, 0755);
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 s->fd);
	if (mount("rl2fuse", s->mnt, "fuse", MS_NOSUID | MS_NODEV, opts)) {
		fprintf(stderr, "# mount fuse on %s: %s\n", s->mnt, strerror(errno));
		close(s->fd);
		s->fd = -1;
		fs_stop(s);
		return -1;
	}
	s->mounted = true;
	if (pthread_create(&s->thread, NULL, fs_serve, s)) {
		fs_stop(s);
		return -1;
	}
	return 0;
}

void fs_abort(struct fs_srv *s)
{
	struct stat st;
	char path[96];

	if (!s->mounted || stat(s->mnt, &st))
		return;
	mkdir("/sys/fs/fuse/connections", 0755);
	mount("fusectl", "/sys/fs/fuse/connections", "fusectl", 0, NULL);	/* may be there */
	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort", minor(st.st_dev));
	if (th_write_file(path, "1"))
		fprintf(stderr, "# %s: %s\n", path, strerror(errno));
}

int fs_hold_write(struct fs_srv *s, const char *name, unsigned int page, int close_fd)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	off_t at = (off_t)page * (off_t)pg;
	char path[128];
	uint32_t *w;
	pid_t pid;
	int fd;

	s->answer_writes = false;
	fs_path(s, name, path, sizeof(path));
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (close_fd >= 0)
			close(close_fd);
		fd = open(path, O_RDWR);
		w = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, at);
		if (fd < 0 || w == MAP_FAILED)
			_exit(2);
		w[pg / 4 - 1] = 1;	/* the page may be clean again: a word no list uses */
		if (sync_file_range(fd, at, pg, SYNC_FILE_RANGE_WRITE))
			_exit(3);
		sleep(60);
		_exit(1);
	}
	s->holder = pid;
	for (int i = 0; i < 500 && !s->writes; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			s->holder = 0;
			return -1;
		}
		usleep(10000);
	}
	return s->writes ? 0 : -1;
}

void fs_end_hold(struct fs_srv *s)
{
	if (s->holder > 0) {
		kill(s->holder, SIGKILL);
		waitpid(s->holder, NULL, 0);
	}
	s->holder = 0;
}

void fs_stop(struct fs_srv *s)
{
	fs_abort(s);
	fs_end_hold(s);
	if (s->mounted)
		umount2(s->mnt, MNT_DETACH);
	s->mounted = false;
	if (s->fd >= 0) {
		pthread_join(s->thread, NULL);
		close(s->fd);
	}
	s->fd = -1;
	rmdir(s->mnt);
	free(s->rbuf);
	free(s->wbuf);
	free(s->data);
	s->rbuf = s->wbuf = s->data = NULL;
}

const char *fs_path(const struct fs_srv *s, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", s->mnt, name);
	return buf;
}
