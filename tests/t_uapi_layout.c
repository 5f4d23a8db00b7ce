// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl ABI of /dev/robust_list2 is frozen: every struct must have the
 * same size and field offsets for 64-bit, 32-bit and x32 callers (the module
 * uses compat_ptr_ioctl, so nothing translates them), and every command,
 * ioctl number and type value is a number user space has compiled in.
 *
 * Each fact is written once in a table below and checked twice: by
 * _Static_assert, so building this file with -m32 and -mx32 (-c only) fails
 * on any ABI where the layout differs, and by cmocka at run time, so the
 * host run reports real test cases.  A field list that sums to the struct
 * size proves the header has no implicit padding.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/ioctl.h>
#include <linux/robust_list2.h>
#include "robust_list2.h"

#define FIELD_SIZE(type, field)	sizeof(((type *)0)->field)
#define IS_SIGNED(type, field)	((__typeof__(((type *)0)->field))-1 < 1)

/* X(type, field, offset, size, signed) for every field, in header order. */
#define INFO_FIELDS(X)							\
	X(struct robust_list2_info, abi_version,	0,  4, 0)	\
	X(struct robust_list2_info, nr_slots,		4,  4, 0)	\
	X(struct robust_list2_info, walk_limit,		8,  8, 0)	\
	X(struct robust_list2_info, features,		16, 8, 0)	\
	X(struct robust_list2_info, io_wait_ms,		24, 4, 0)	\
	X(struct robust_list2_info, pad,		28, 4, 0)	\
	X(struct robust_list2_info, reserved[0],	32, 8, 0)	\
	X(struct robust_list2_info, reserved[1],	40, 8, 0)	\
	X(struct robust_list2_info, reserved[2],	48, 8, 0)	\
	X(struct robust_list2_info, reserved[3],	56, 8, 0)

#define SET_FIELDS(X)							\
	X(struct robust_list2_set, head,		0,  8, 0)	\
	X(struct robust_list2_set, index,		8,  4, 0)	\
	X(struct robust_list2_set, cmd,			12, 4, 0)	\
	X(struct robust_list2_set, flags,		16, 4, 0)	\
	X(struct robust_list2_set, pad,			20, 4, 0)

#define GET_FIELDS(X)							\
	X(struct robust_list2_get, head_ptr,		0,  8, 0)	\
	X(struct robust_list2_get, head,		8,  8, 0)	\
	X(struct robust_list2_get, pid,			16, 4, 1)	\
	X(struct robust_list2_get, index,		20, 4, 0)	\
	X(struct robust_list2_get, flags,		24, 4, 0)	\
	X(struct robust_list2_get, type,		28, 4, 0)

#define STATS_FIELDS(X)						\
	X(struct robust_list2_stats, tasks,		0,   8, 0)	\
	X(struct robust_list2_stats, walks,		8,   8, 0)	\
	X(struct robust_list2_stats, entries,		16,  8, 0)	\
	X(struct robust_list2_stats, recovered,		24,  8, 0)	\
	X(struct robust_list2_stats, woken,		32,  8, 0)	\
	X(struct robust_list2_stats, cycles,		40,  8, 0)	\
	X(struct robust_list2_stats, limited,		48,  8, 0)	\
	X(struct robust_list2_stats, faults,		56,  8, 0)	\
	X(struct robust_list2_stats, fixups,		64,  8, 0)	\
	X(struct robust_list2_stats, io_timeouts,	72,  8, 0)	\
	X(struct robust_list2_stats, faults_in_flight,	80,  8, 0)	\
	X(struct robust_list2_stats, faults_pinned,	88,  8, 0)	\
	X(struct robust_list2_stats, reserved[0],	96,  8, 0)	\
	X(struct robust_list2_stats, reserved[1],	104,  8, 0)	\
	X(struct robust_list2_stats, reserved[2],	112,  8, 0)	\
	X(struct robust_list2_stats, reserved[3],	120,  8, 0)

#define FAULTS_FIELDS(X)						\
	X(struct robust_list2_faults, in_flight,	0,  4, 0)	\
	X(struct robust_list2_faults, pinned,		4,  4, 0)	\
	X(struct robust_list2_faults, per_user,		8,  4, 0)	\
	X(struct robust_list2_faults, per_mm,		12, 4, 0)	\
	X(struct robust_list2_faults, shared,		16, 4, 0)	\
	X(struct robust_list2_faults, pad,		20, 4, 0)	\
	X(struct robust_list2_faults, reserved[0],	24, 8, 0)	\
	X(struct robust_list2_faults, reserved[1],	32, 8, 0)	\
	X(struct robust_list2_faults, reserved[2],	40, 8, 0)

#define UNLOCK_FIELDS(X)						\
	X(struct robust_list2_unlock, uaddr,		0,  8, 0)	\
	X(struct robust_list2_unlock, pop,		8,  8, 0)	\
	X(struct robust_list2_unlock, tid,		16, 4, 0)	\
	X(struct robust_list2_unlock, flags,		20, 4, 0)	\
	X(struct robust_list2_unlock, nr_wake,		24, 4, 0)	\
	X(struct robust_list2_unlock, old,		28, 4, 0)

#define WINDOW_FIELDS(X)						\
	X(struct robust_list2_window, start64,		0,  8, 0)	\
	X(struct robust_list2_window, end64,		8,  8, 0)	\
	X(struct robust_list2_window, start32,		16, 8, 0)	\
	X(struct robust_list2_window, end32,		24, 8, 0)	\
	X(struct robust_list2_window, flags,		32, 4, 0)	\
	X(struct robust_list2_window, pad,		36, 4, 0)	\
	X(struct robust_list2_window, reserved[0],	40, 8, 0)	\
	X(struct robust_list2_window, reserved[1],	48, 8, 0)	\
	X(struct robust_list2_window, reserved[2],	56, 8, 0)

#define SET_BASED_FIELDS(X)						\
	X(struct robust_list2_set_based, head,		0,  8, 0)	\
	X(struct robust_list2_set_based, base,		8,  8, 0)	\
	X(struct robust_list2_set_based, index,		16, 4, 0)	\
	X(struct robust_list2_set_based, cmd,		20, 4, 0)	\
	X(struct robust_list2_set_based, flags,		24, 4, 0)	\
	X(struct robust_list2_set_based, pad,		28, 4, 0)

#define GET_BASED_FIELDS(X)						\
	X(struct robust_list2_get_based, head,		0,  8, 0)	\
	X(struct robust_list2_get_based, base,		8,  8, 0)	\
	X(struct robust_list2_get_based, pid,		16, 4, 1)	\
	X(struct robust_list2_get_based, index,		20, 4, 0)	\
	X(struct robust_list2_get_based, flags,		24, 4, 0)	\
	X(struct robust_list2_get_based, type,		28, 4, 0)

/* The v6 32-bit list head, as the library header declares it. */
#define HEAD32_FIELDS(X)						\
	X(struct robust_list_head32, list.next,		0,  4, 0)	\
	X(struct robust_list_head32, futex_offset,	4,  4, 1)	\
	X(struct robust_list_head32, list_op_pending,	8,  4, 0)

/* X(type, size) */
#define STRUCTS(X)				\
	X(struct robust_list2_info, 64)		\
	X(struct robust_list2_set, 24)		\
	X(struct robust_list2_get, 32)		\
	X(struct robust_list2_stats, 128)	\
	X(struct robust_list2_unlock, 32)	\
	X(struct robust_list2_window, 64)		\
	X(struct robust_list2_set_based, 32)	\
	X(struct robust_list2_get_based, 32)	\
	X(struct robust_list2_faults, 48)

/* X(ioctl, nr, size, dir) */
#define IOCTLS(X)							\
	X(ROBUST_LIST2_IOC_INFO, 0x00, 64, _IOC_READ)			\
	X(ROBUST_LIST2_IOC_SET,  0x01, 24, _IOC_WRITE)			\
	X(ROBUST_LIST2_IOC_GET,  0x02, 32, _IOC_READ | _IOC_WRITE)	\
	X(ROBUST_LIST2_IOC_STATS, 0x03, 128, _IOC_READ)		\
	X(ROBUST_LIST2_IOC_CREATE, 0x04, 24, _IOC_WRITE)		\
	X(ROBUST_LIST2_IOC_UNLOCK, 0x05, 32, _IOC_READ | _IOC_WRITE)	\
	X(ROBUST_LIST2_IOC_SET_WINDOW, 0x06, 64, _IOC_WRITE)		\
	X(ROBUST_LIST2_IOC_SET_BASED, 0x07, 32, _IOC_WRITE)		\
	X(ROBUST_LIST2_IOC_GET_BASED, 0x08, 32, _IOC_READ | _IOC_WRITE)	\
	X(ROBUST_LIST2_IOC_FAULTS, 0x09, 48, _IOC_READ)

/* X(name, value): every constant user space compiles in. */
#define VALUES(X)							\
	X(ROBUST_LIST2_IOC_TYPE,		0xBE)			\
	X(ROBUST_LIST2_ABI_VERSION,		2)			\
	X(ROBUST_LIST2_NR_SLOTS,		8)			\
	X(ROBUST_LIST2_CMD_SET_64,		0)			\
	X(ROBUST_LIST2_CMD_SET_32,		1)			\
	X(ROBUST_LIST2_CMD_LIST_LIMIT,		2)			\
	X(FUTEX_ROBUST_LIST_CMD_SET_64,		ROBUST_LIST2_CMD_SET_64) \
	X(FUTEX_ROBUST_LIST_CMD_SET_32,		ROBUST_LIST2_CMD_SET_32) \
	X(FUTEX_ROBUST_LIST_CMD_LIST_LIMIT,	ROBUST_LIST2_CMD_LIST_LIMIT) \
	X(FUTEX_ROBUST_LIST_CMD_USER_MAX,	3)			\
	X(ROBUST_LIST2_TYPE_EMPTY,		0)			\
	X(ROBUST_LIST2_TYPE_64,			1)			\
	X(ROBUST_LIST2_TYPE_32,			2)			\
	X(ROBUST_LIST2_F_LIST64,		1ULL << 0)		\
	X(ROBUST_LIST2_F_LIST32,		1ULL << 1)		\
	X(ROBUST_LIST2_F_CYCLE_SAFE,		1ULL << 2)		\
	X(ROBUST_LIST2_F_PRIVATE_WAKE,		1ULL << 3)		\
	X(ROBUST_LIST2_F_EXEC_WALK,		1ULL << 4)		\
	X(ROBUST_LIST2_F_CREATE,		1ULL << 5)		\
	X(ROBUST_LIST2_F_UNLOCK,		1ULL << 6)		\
	X(ROBUST_LIST2_F_UNLOCK_WINDOW,		1ULL << 7)		\
	X(ROBUST_LIST2_F_BASED,			1ULL << 9)		\
	X(ROBUST_LIST2_F_INLINE_WINDOW,		1ULL << 10)		\
	X(ROBUST_LIST2_F_FAULTS,		1ULL << 11)		\
	X(ROBUST_LIST2_UNLOCK_POP32,		1U << 0)		\
	X(ROBUST_LIST2_UNLOCK_PRIVATE,		1U << 1)		\
	X(ROBUST_LIST2_UNLOCK_PI,		1U << 2)

/*
 * The full numbers as strace prints them, for the asm-generic encoding
 * (x86, arm64, riscv, ...); other encodings are covered by the fields.
 */
#if _IOC_NRBITS == 8 && _IOC_TYPEBITS == 8 && _IOC_SIZEBITS == 14 && \
	_IOC_WRITE == 1U && _IOC_READ == 2U
#define NUMBERS(X)				\
	X(ROBUST_LIST2_IOC_INFO, 0x8040BE00U)	\
	X(ROBUST_LIST2_IOC_SET,  0x4018BE01U)	\
	X(ROBUST_LIST2_IOC_GET,  0xC020BE02U)	\
	X(ROBUST_LIST2_IOC_STATS, 0x8080BE03U)	\
	X(ROBUST_LIST2_IOC_CREATE, 0x4018BE04U)	\
	X(ROBUST_LIST2_IOC_UNLOCK, 0xC020BE05U)	\
	X(ROBUST_LIST2_IOC_SET_WINDOW, 0x4040BE06U)
#else
#define NUMBERS(X)
#endif

/* Compile time: fails the build (for every -m flag) on any drift. */
#define STATIC_FIELD(t, f, off, sz, sgn)				\
	_Static_assert(offsetof(t, f) == (off), #t "." #f " offset");	\
	_Static_assert(FIELD_SIZE(t, f) == (sz), #t "." #f " size");	\
	_Static_assert(IS_SIGNED(t, f) == (sgn), #t "." #f " signedness");
#define SUM_FIELD(t, f, off, sz, sgn)	+ (sz)
#define STATIC_STRUCT(t, sz)						\
	_Static_assert(sizeof(t) == (sz), "sizeof(" #t ")");		\
	_Static_assert(sizeof(t) % 8 == 0, "sizeof(" #t ") % 8");
#define STATIC_IOCTL(ioc, nr, sz, dir)					\
	_Static_assert(_IOC_TYPE(ioc) == 0xBE, #ioc " type");		\
	_Static_assert(_IOC_NR(ioc) == (nr), #ioc " nr");		\
	_Static_assert(_IOC_SIZE(ioc) == (sz), #ioc " size");		\
	_Static_assert(_IOC_DIR(ioc) == (dir), #ioc " dir");
#define STATIC_VALUE(name, val)						\
	_Static_assert((name) == (val), #name);

INFO_FIELDS(STATIC_FIELD)
SET_FIELDS(STATIC_FIELD)
GET_FIELDS(STATIC_FIELD)
STATS_FIELDS(STATIC_FIELD)
UNLOCK_FIELDS(STATIC_FIELD)
WINDOW_FIELDS(STATIC_FIELD)
HEAD32_FIELDS(STATIC_FIELD)
SET_BASED_FIELDS(STATIC_FIELD)
GET_BASED_FIELDS(STATIC_FIELD)
FAULTS_FIELDS(STATIC_FIELD)
STRUCTS(STATIC_STRUCT)
_Static_assert(sizeof(struct robust_list2_info) == 0 INFO_FIELDS(SUM_FIELD),
	       "robust_list2_info has undeclared bytes");
_Static_assert(sizeof(struct robust_list2_set) == 0 SET_FIELDS(SUM_FIELD),
	       "robust_list2_set has undeclared bytes");
_Static_assert(sizeof(struct robust_list2_get) == 0 GET_FIELDS(SUM_FIELD),
	       "robust_list2_get has undeclared bytes");
_Static_assert(sizeof(struct robust_list2_stats) == 0 STATS_FIELDS(SUM_FIELD),
	       "robust_list2_stats has undeclared bytes");
_Static_assert(sizeof(struct robust_list2_unlock) == 0 UNLOCK_FIELDS(SUM_FIELD),
	       "robust_list2_unlock has undeclared bytes");
_Static_assert(sizeof(struct robust_list2_window) == 0 WINDOW_FIELDS(SUM_FIELD),
	       "robust_list2_window has undeclared bytes");
_Static_assert(sizeof(struct robust_list2_set_based) == 0 SET_BASED_FIELDS(SUM_FIELD),
	       "robust_list2_set_based has undeclared bytes");
_Static_assert(sizeof(struct robust_list2_get_based) == 0 GET_BASED_FIELDS(SUM_FIELD),
	       "robust_list2_get_based has undeclared bytes");
_Static_assert(sizeof(struct robust_list2_faults) == 0 FAULTS_FIELDS(SUM_FIELD),
	       "robust_list2_faults has undeclared bytes");
_Static_assert(sizeof(struct robust_list_head32) == 12,
	       "sizeof(struct robust_list_head32)");
IOCTLS(STATIC_IOCTL)
VALUES(STATIC_VALUE)
NUMBERS(STATIC_VALUE)

/* Run time: the same tables, reported as test cases. */
#define CHECK_FIELD(t, f, off, sz, sgn)					\
	do {								\
		assert_int_equal(off, offsetof(t, f));			\
		assert_int_equal(sz, FIELD_SIZE(t, f));			\
		assert_int_equal(sgn, IS_SIGNED(t, f));			\
		total += sz;						\
	} while (0);
#define CHECK_STRUCT(t, sz)						\
	do {								\
		assert_int_equal(sz, sizeof(t));			\
		assert_int_equal(0, sizeof(t) % 8);			\
	} while (0);
#define CHECK_IOCTL(ioc, nr, sz, dir)					\
	do {								\
		assert_int_equal(0xBE, _IOC_TYPE(ioc));			\
		assert_int_equal(nr, _IOC_NR(ioc));			\
		assert_int_equal(sz, _IOC_SIZE(ioc));			\
		assert_int_equal(dir, _IOC_DIR(ioc));			\
	} while (0);
#define CHECK_VALUE(name, val)	assert_int_equal(val, name);

static void test_struct_sizes(void **state)
{
	STRUCTS(CHECK_STRUCT)
	assert_int_equal(12, sizeof(struct robust_list_head32));
}

static void test_info_layout(void **state)
{
	size_t total = 0;

	INFO_FIELDS(CHECK_FIELD)
	assert_int_equal(sizeof(struct robust_list2_info), total);
}

static void test_set_layout(void **state)
{
	size_t total = 0;

	SET_FIELDS(CHECK_FIELD)
	assert_int_equal(sizeof(struct robust_list2_set), total);
}

static void test_get_layout(void **state)
{
	size_t total = 0;

	GET_FIELDS(CHECK_FIELD)
	assert_int_equal(sizeof(struct robust_list2_get), total);
}

static void test_stats_layout(void **state)
{
	size_t total = 0;

	STATS_FIELDS(CHECK_FIELD)
	assert_int_equal(sizeof(struct robust_list2_stats), total);
}

static void test_unlock_layout(void **state)
{
	size_t total = 0;

	UNLOCK_FIELDS(CHECK_FIELD)
	assert_int_equal(sizeof(struct robust_list2_unlock), total);
}

static void test_window_layout(void **state)
{
	size_t total = 0;

	WINDOW_FIELDS(CHECK_FIELD)
	assert_int_equal(sizeof(struct robust_list2_window), total);
}

static void test_set_based_layout(void **state)
{
	size_t total = 0;

	SET_BASED_FIELDS(CHECK_FIELD)
	assert_int_equal(sizeof(struct robust_list2_set_based), total);
}

static void test_get_based_layout(void **state)
{
	size_t total = 0;

	GET_BASED_FIELDS(CHECK_FIELD)
	assert_int_equal(sizeof(struct robust_list2_get_based), total);
}

static void test_faults_layout(void **state)
{
	size_t total = 0;

	FAULTS_FIELDS(CHECK_FIELD)
	assert_int_equal(sizeof(struct robust_list2_faults), total);
}

static void test_head32_layout(void **state)
{
	size_t total = 0;

	HEAD32_FIELDS(CHECK_FIELD)
	assert_int_equal(sizeof(struct robust_list_head32), total);
}

static void test_ioctl_numbers(void **state)
{
	IOCTLS(CHECK_IOCTL)
	NUMBERS(CHECK_VALUE)
}

static void test_abi_values(void **state)
{
	VALUES(CHECK_VALUE)
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_struct_sizes),
		cmocka_unit_test(test_info_layout),
		cmocka_unit_test(test_set_layout),
		cmocka_unit_test(test_get_layout),
		cmocka_unit_test(test_stats_layout),
		cmocka_unit_test(test_unlock_layout),
		cmocka_unit_test(test_window_layout),
		cmocka_unit_test(test_set_based_layout),
		cmocka_unit_test(test_get_based_layout),
		cmocka_unit_test(test_faults_layout),
		cmocka_unit_test(test_head32_layout),
		cmocka_unit_test(test_ioctl_numbers),
		cmocka_unit_test(test_abi_values),
	};

	return cmocka_run_group_tests_name("uapi_layout", tests, NULL, NULL);
}
