// SPDX-License-Identifier: GPL-2.0
/*
 * Finding the kernel's vDSO try-unlock functions: the vDSO is an ELF
 * image the kernel maps into every process (getauxval(AT_SYSINFO_EHDR));
 * its dynamic symbol table, sized by DT_HASH, names them.
 */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <linux/futex.h>

#include "vdso.h"

void *th_vdso_sym(const char *name)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;
	const ElfW(Dyn) *dyn = NULL;
	const ElfW(Sym) *sym = NULL;
	const ElfW(Word) *hash = NULL;
	const char *str = NULL;
	uintptr_t base, load = 0;
	bool have_load = false;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return NULL;
	base = (uintptr_t)eh;
	ph = (const void *)(base + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !have_load) {
			load = base + ph[i].p_offset - ph[i].p_vaddr;
			have_load = true;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dyn = (const void *)(base + ph[i].p_offset);
		}
	}
	if (!have_load || !dyn)
		return NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			sym = (const void *)(load + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_STRTAB)
			str = (const void *)(load + dyn->d_un.d_ptr);
		else if (dyn->d_tag == DT_HASH)
			hash = (const void *)(load + dyn->d_un.d_ptr);
	}
	if (!sym || !str || !hash)
		return NULL;
	/* DT_HASH: nbucket, nchain; nchain is the number of symbols */
	for (ElfW(Word) i = 0; i < hash[1]; i++) {
		if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC || sym[i].st_shndx == SHN_UNDEF)
			continue;
		if (!strcmp(str + sym[i].st_name, name))
			return (void *)(load + sym[i].st_value);
	}
	return NULL;
}

th_vdso_try_unlock_fn th_vdso_try_unlock(int bits)
{
	return (th_vdso_try_unlock_fn)th_vdso_sym(bits == 64 ?
		"__vdso_futex_robust_list64_try_unlock" :
		"__vdso_futex_robust_list32_try_unlock");
}

bool th_have_robust_unlock(const char **why)
{
	static uint32_t word;
	uintptr_t pop = 0;
	long ret;

	/* releases our private word (0 anyway), clears pop, wakes nobody */
	ret = syscall(SYS_futex, &word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG | FUTEX_ROBUST_UNLOCK
		      | (sizeof(void *) == 4 ? FUTEX_ROBUST_LIST32 : 0), 1, NULL, &pop, 0);
	if (ret >= 0)
		return true;
	if (why)
		*why = errno == ENOSYS ? "no FUTEX_ROBUST_UNLOCK on this kernel (Linux 7.2+, x86)" :
					 "FUTEX_ROBUST_UNLOCK refused";
	return false;
}
