// SPDX-License-Identifier: GPL-2.0
/*
 * kill-on-wake PROG [ARG]...: run PROG (an emulator) under a seccomp filter
 * that kills the whole process at its first shared FUTEX_WAKE of one waiter,
 * futex(uaddr, FUTEX_WAKE, 1, ...).  That is the call glibc's
 * pthread_mutex_unlock() makes for a process-shared mutex with waiters after
 * it released the lock word and before it clears list_op_pending: a guest
 * that unlocks such a mutex dies inside that window, every time.  (qemu-user
 * refuses the guest's own seccomp filters, so the filter goes on the host
 * process; its private futexes use FUTEX_WAKE_PRIVATE, not matched.)
 * Built for the host's architecture by scripts/check-emulator.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define RL2_AUDIT_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define RL2_AUDIT_ARCH	AUDIT_ARCH_AARCH64
#else
#error "kill-on-wake: no audit arch for this host"
#endif

/* The low 32 bits of syscall argument @i (little-endian hosts). */
#define ARG_LO(i)	(offsetof(struct seccomp_data, args) + (i) * sizeof(__u64))

int main(int argc, char **argv)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RL2_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_futex, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FUTEX_WAKE, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	struct rlimit no_core = { 0, 0 };

	if (argc < 2) {
		fprintf(stderr, "usage: kill-on-wake PROG [ARG]...\n");
		return 2;
	}
	setrlimit(RLIMIT_CORE, &no_core);	/* a SIGSYS death dumps core */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		fprintf(stderr, "kill-on-wake: seccomp: %s\n", strerror(errno));
		return 2;
	}
	execv(argv[1], argv + 1);
	fprintf(stderr, "kill-on-wake: %s: %s\n", argv[1], strerror(errno));
	return 2;
}
