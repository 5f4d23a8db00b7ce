// SPDX-License-Identifier: GPL-2.0
/*
 * robust-list2 unload: through libkmod, as modprobe -r would.  A refusal
 * says who holds the module.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <libkmod.h>

#include "robust_list2.h"
#include "common.h"
#include "json.h"
#include "modstate.h"
#include "unload.h"

/*
 * Each thread with a slot and each open descriptor of the device holds one
 * reference on the module: split the refcount for the message.  It is read
 * before our own descriptor exists.
 */
static int busy_error(struct kmod_module *mod, int refcnt)
{
	struct robust_list2_stats st;
	long long files;

	if (refcnt < 0 || robust_list2_stats(&st))
		return fail(EXIT_ERR, 0, "cannot unload %s: in use (refcount %d)", MODNAME,
			    refcnt);
	files = (long long)refcnt - (long long)st.tasks;
	return fail(EXIT_ERR, 0, "cannot unload %s: in use: %" PRIu64 " thread%s hold%s slots,"
		    " %s open %lld time%s (refcount %d)", MODNAME, (uint64_t)st.tasks,
		    st.tasks == 1 ? "" : "s", st.tasks == 1 ? "s" : "", ROBUST_LIST2_DEVICE,
		    files < 0 ? 0 : files, files == 1 ? "" : "s", refcnt);
}

int cmd_unload(int argc, char **argv)
{
	struct kmod_module *mod;
	struct mod_state ms;
	int ret;

	ret = plain_opts(argc, argv, "unload");
	if (ret != -1)
		return ret;

	ret = need_module(&ms, "unload");
	if (ret)
		return ret;
	if (!strcmp(ms.state, "builtin"))
		return fail(EXIT_ERR, 0, "unload: %s is built into the kernel", MODNAME);
	ret = mod_open(&mod);
	if (ret)
		return fail(EXIT_ERR, -ret, "unload: libkmod");
	ret = kmod_module_remove_module(mod, KMOD_REMOVE_NOWAIT);
	if (ret == -EAGAIN || ret == -EBUSY)
		ret = busy_error(mod, kmod_module_get_refcnt(mod));
	else if (ret == -EPERM)
		ret = fail(EXIT_ERR, EPERM, "unload: needs CAP_SYS_MODULE (root)");
	else if (ret == -ENOENT)
		ret = fail(EXIT_NOT_LOADED, 0, "unload: %s is not loaded", MODNAME);
	else if (ret < 0)
		ret = fail(EXIT_ERR, -ret, "unload %s", MODNAME);
	kmod_module_unref(mod);
	if (ret)
		return ret;
	if (opt_json) {
		j_open(NULL, '{');
		j_bool("unloaded", true);
		j_close('}');
	} else {
		printf("%s unloaded\n", MODNAME);
	}
	return EXIT_OK;
}
