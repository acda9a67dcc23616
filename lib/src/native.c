// SPDX-License-Identifier: LGPL-2.1
/*
 * Native events: libpfm4's names of the CPU's own events.
 *
 * libpfm4 is asked once, on first use, which PMU it finds (or the one
 * LIBPFM_FORCE_PMU names), and from then on every name is looked up in
 * that PMU's table alone, as "PMU::NAME".  Its encoding without an
 * operating system (PFM_OS_NONE) is the selector register; events.c
 * turns that into ours.  Nothing here knows our selector bits.
 */
#include <ctype.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfmon/pfmlib.h>

#include "internal.h"

#define NATIVE_MAX_CODES	4

static struct {
	int err;		/* 0, ENODEV or ENOMEM */
	char why[PERFCTR_EVENT_ERROR_SIZE];
	pfm_pmu_info_t pmu;
	enum native_vendor vendor;
	int forced;
	int *events;		/* libpfm4's indices of the PMU's events */
	unsigned int nevents;
} native;

static pthread_once_t native_once = PTHREAD_ONCE_INIT;

static enum native_vendor vendor_of(const pfm_pmu_info_t *pmu)
{
#if defined(__aarch64__)
	(void)pmu;
	return NATIVE_ARM64;
#else
	if (!strncmp(pmu->desc, "AMD", 3))
		return NATIVE_AMD;
	if (!strncmp(pmu->desc, "Intel", 5))
		return NATIVE_INTEL;
	return NATIVE_OTHER;
#endif
}

/*
 * The core PMU libpfm4 found: the one of the CPU's model rather than
 * Intel's architectural one, which libpfm4 finds beside it.
 */
static int find_pmu(pfm_pmu_info_t *found)
{
	pfm_pmu_info_t info;
	int pmu, have = 0;

	for (pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX; pmu++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS ||
		    !info.is_present || info.type != PFM_PMU_TYPE_CORE ||
		    vendor_of(&info) == NATIVE_OTHER)
			continue;
		if (have && info.pmu == PFM_PMU_INTEL_X86_ARCH)
			continue;
		*found = info;
		have = 1;
		if (info.pmu != PFM_PMU_INTEL_X86_ARCH)
			break;
	}
	return have;
}

/* PMUs of libpfm4 like this CPU's, for the message that says to force one. */
static const char *like_this_cpu(void)
{
#if defined(__aarch64__)
	return "arm_n1 or arm_ac57";
#elif defined(__x86_64__) || defined(__i386__)
	unsigned int eax, ebx, ecx, edx;

	if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) && ebx == 0x68747541)
		return "amd64_fam19h_zen4 or amd64_fam19h_zen3";   /* "Auth" */
	return "spr, icl or skl";
#else
	return "one of the same vendor";
#endif
}

static void no_pmu(const char *forced)
{
	if (forced) {
		snprintf(native.why, sizeof(native.why), "LIBPFM_FORCE_PMU=%s "
			 "names no PMU libpfm4 knows on this architecture "
			 "(perfex -l --pmus lists them)", forced);
		return;
	}
	snprintf(native.why, sizeof(native.why), "libpfm4 knows no PMU of "
		 "this CPU: set LIBPFM_FORCE_PMU to one like it, e.g. %s "
		 "(perfex -l --pmus lists them)", like_this_cpu());
}

static void native_init(void)
{
	const char *forced = getenv("LIBPFM_FORCE_PMU");
	int idx, ret;

	native.err = ENODEV;
	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		snprintf(native.why, sizeof(native.why), "libpfm4 failed to "
			 "start: %s", pfm_strerror(ret));
		return;
	}
	if (!find_pmu(&native.pmu)) {
		no_pmu(forced && *forced ? forced : NULL);
		return;
	}
	native.vendor = vendor_of(&native.pmu);
	native.forced = forced && *forced;
	native.events = calloc(native.pmu.nevents ? native.pmu.nevents : 1,
			       sizeof(*native.events));
	if (!native.events) {
		native.err = ENOMEM;
		snprintf(native.why, sizeof(native.why), "out of memory");
		return;
	}
	for (idx = native.pmu.first_event;
	     idx != -1 && native.nevents < (unsigned int)native.pmu.nevents;
	     idx = pfm_get_event_next(idx))
		native.events[native.nevents++] = idx;
	native.err = 0;
}

/* libpfm4 started and its PMU found: 0, or -1 with errno and @err. */
static int native_ready(char *err, size_t err_size)
{
	pthread_once(&native_once, native_init);
	if (native.err)
		return fail(native.err, err, err_size, "%s", native.why);
	return 0;
}

int perfctr_native_pmu(struct perfctr_native_pmu *pmu, char *err,
		       size_t err_size)
{
	if (native_ready(err, err_size) < 0)
		return -1;
	pmu->name = native.pmu.name;
	pmu->description = native.pmu.desc;
	pmu->nevents = native.nevents;
	pmu->forced = native.forced;
	return 0;
}

static int event_info(int idx, pfm_event_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return pfm_get_event_info(idx, PFM_OS_NONE, info) == PFM_SUCCESS ? 0 :
	       -1;
}

int perfctr_native_event(unsigned int index,
			 struct perfctr_native_event *event)
{
	pfm_event_info_t info;

	if (native_ready(NULL, 0) < 0)
		return -1;
	if (index >= native.nevents ||
	    event_info(native.events[index], &info)) {
		errno = ENOENT;
		return -1;
	}
	event->name = info.name;
	event->description = info.desc ? info.desc : "";
	event->nattrs = info.nattrs;
	return 0;
}

int perfctr_native_attr(unsigned int index, unsigned int attr,
			struct perfctr_native_attr *out)
{
	pfm_event_attr_info_t info;

	if (native_ready(NULL, 0) < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (index >= native.nevents || attr > 0xffff ||
	    pfm_get_event_attr_info(native.events[index], attr, PFM_OS_NONE,
				    &info) != PFM_SUCCESS) {
		errno = ENOENT;
		return -1;
	}
	out->name = info.name;
	out->description = info.desc ? info.desc : "";
	out->is_default = info.is_dfl;
	switch (info.type) {
	case PFM_ATTR_UMASK:
		out->type = PERFCTR_NATIVE_UMASK;
		break;
	case PFM_ATTR_MOD_BOOL:
		out->type = PERFCTR_NATIVE_FLAG;
		break;
	default:
		out->type = PERFCTR_NATIVE_NUMBER;
		break;
	}
	return 0;
}

int perfctr_native_pmu_supported(unsigned int index,
				 struct perfctr_native_pmu *pmu)
{
	pfm_pmu_info_t info;
	int p;

	if (native_ready(NULL, 0) < 0 && errno != ENODEV)
		return -1;
	for (p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS ||
		    info.type != PFM_PMU_TYPE_CORE ||
		    vendor_of(&info) == NATIVE_OTHER || index-- > 0)
			continue;
		pmu->name = info.name;
		pmu->description = info.desc;
		pmu->nevents = info.nevents;
		pmu->forced = 0;
		return 0;
	}
	errno = ENOENT;
	return -1;
}

/* Levenshtein distance, case-insensitive, of two short names. */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int row[64], i, j, prev, cur, la = strlen(a), lb = strlen(b);

	if (la >= 64 || lb >= 64)
		return la > lb ? la : lb;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			cur = row[j];
			row[j] = prev + (toupper((unsigned char)a[i - 1]) !=
					 toupper((unsigned char)b[j - 1]));
			if (row[j] > row[j - 1] + 1)
				row[j] = row[j - 1] + 1;
			if (row[j] > cur + 1)
				row[j] = cur + 1;
			prev = cur;
		}
	}
	return row[lb];
}

/* Does @name hold @part, case-insensitive? */
static int contains(const char *name, const char *part)
{
	size_t n = strlen(part);

	for (; *name; name++)
		if (!strncasecmp(name, part, n))
			return 1;
	return 0;
}

/* Up to three names, the closest to a wanted one first. */
struct suggestions {
	const char *best[3];
	unsigned int score[3];
};

/* @name into @n if it is close to @want: holding it, or a few edits off. */
static void suggest(struct suggestions *n, const char *want, const char *name)
{
	unsigned int k, d = distance(want, name);

	if (contains(name, want))
		d = 0;
	if (d > strlen(want) / 2 + 1)
		return;
	for (k = 0; k < 3 && n->best[k] && n->score[k] <= d; k++)
		;
	if (k == 3)
		return;
	memmove(&n->best[k + 1], &n->best[k], (2 - k) * sizeof(n->best[0]));
	memmove(&n->score[k + 1], &n->score[k], (2 - k) * sizeof(n->score[0]));
	n->best[k] = name;
	n->score[k] = d;
}

/* "; closest: A, B, C" into @buf, or nothing. */
static void suggestions_print(const struct suggestions *n, char *buf, size_t size)
{
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < 3 && n->best[k]; k++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
			 k ? ", " : "; closest: ", n->best[k]);
}

/* The PMU's event names closest to @event, for the message. */
static void closest_event(const char *event, char *buf, size_t size)
{
	struct suggestions n;
	pfm_event_info_t info;
	unsigned int i;

	memset(&n, 0, sizeof(n));
	for (i = 0; i < native.nevents; i++)
		if (!event_info(native.events[i], &info))
			suggest(&n, event, info.name);
	suggestions_print(&n, buf, size);
}

/*
 * libpfm4 refused an attribute of @name ("PMU::EVENT:A:B=1"): the first
 * that is none of the event's, and its closest, for the message.
 */
static void closest_attr(const char *name, char *buf, size_t size)
{
	char copy[320], *tok, *save = NULL, *eq;
	pfm_event_attr_info_t a;
	struct suggestions n;
	int idx, i, known;

	memset(&n, 0, sizeof(n));
	buf[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", name);
	tok = strchr(strstr(copy, "::") + 2, ':');
	if (!tok)
		return;
	*tok = '\0';
	idx = pfm_find_event(copy);
	if (idx < 0)
		return;
	for (tok = strtok_r(tok + 1, ":", &save); tok;
	     tok = strtok_r(NULL, ":", &save)) {
		eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		known = 0;
		for (i = 0; !known; i++) {
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE,
						    &a) != PFM_SUCCESS)
				break;
			known = !strcasecmp(a.name, tok);
		}
		if (known)
			continue;
		for (i = 0;; i++) {
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			if (pfm_get_event_attr_info(idx, i, PFM_OS_NONE,
						    &a) != PFM_SUCCESS)
				break;
			suggest(&n, tok, a.name);
		}
		snprintf(buf, size, ": no '%s'", tok);
		suggestions_print(&n, buf + strlen(buf), size - strlen(buf));
		return;
	}
}

/* Is @tok (@len characters) a modifier of another's modes? */
static int other_modes(const char *tok, size_t len)
{
	static const char *const names[] = { "h", "hv", "g" };
	size_t i, n;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		n = strlen(names[i]);
		if ((len == n || (len > n && tok[n] == '=')) &&
		    !strncasecmp(tok, names[i], n))
			return 1;
	}
	return 0;
}

/*
 * libpfm4's "PMU::EVENT:UMASK:MOD..." of @str into @out: the first "."
 * of the event a ":", the mode modifiers left out and put in *@modes
 * (native_mode_token()).
 */
static int native_string(const char *str, char *out, size_t size,
			 __u64 *modes, char *err, size_t err_size)
{
	const char *tok, *end;
	char *dot;
	size_t len, n;
	int ret;

	if (strstr(str, "::"))
		return fail(EINVAL, err, err_size, "%s: an empty modifier, or "
			    "a PMU:: prefix (the PMU is %s; LIBPFM_FORCE_PMU "
			    "chooses another)", str, native.pmu.name);
	len = snprintf(out, size, "%s::", native.pmu.name);
	for (tok = str; tok; tok = *end ? end + 1 : NULL) {
		end = tok + strcspn(tok, ":");
		n = end - tok;
		if (n == 0 || (tok == str && (tok[n - 1] == '.' ||
					      tok[0] == '.')))
			return fail(EINVAL, err, err_size, "%s: an empty "
				    "event, unit mask or modifier", str);
		if (tok != str) {
			ret = native_mode_token(tok, n, modes);
			if (ret < 0)
				return fail(EINVAL, err, err_size, "%s: a mode "
					    "is given twice", str);
			if (ret > 0)
				continue;
			if (other_modes(tok, n))
				return fail(EINVAL, err, err_size, "%s: "
					    "perfctr counts a thread's user "
					    "and kernel mode, no hypervisor, "
					    "host or guest modifier", str);
		}
		if (len + n + 2 >= size)
			return fail(EINVAL, err, err_size, "%.40s...: name too "
				    "long", str);
		if (tok != str)
			out[len++] = ':';
		memcpy(out + len, tok, n);
		dot = tok == str ? memchr(out + len, '.', n) : NULL;
		if (dot)
			*dot = ':';
		len += n;
		out[len] = '\0';
	}
	return 0;
}

/*
 * "EVENT:UMASK" of libpfm4's fully qualified "PMU::EVENT:UMASK:k=1...",
 * or "EVENT" if the first attribute is a modifier ("name=value").
 */
static void event_and_umask(const char *fstr, char *out, size_t size)
{
	const char *ev = fstr ? strstr(fstr, "::") : NULL;
	size_t n;

	out[0] = '\0';
	if (!ev)
		return;
	ev += 2;
	n = strcspn(ev, ":");
	if (ev[n] == ':' && !memchr(ev + n + 1, '=',
				    strcspn(ev + n + 1, ":")))
		n += 1 + strcspn(ev + n + 1, ":");
	snprintf(out, size, "%.*s", (int)n, ev);
}

/*
 * We ask libpfm4 for both modes and set the ones the modifiers give
 * ourselves: an encoding without both is a modifier we did not see.
 */
static int libpfm_modes_both(__u64 code)
{
#if defined(__aarch64__)
	return !(code & (3ull << 30));	/* no EL0 or EL1 exclude */
#else
	return (code & (NATIVE_USR | NATIVE_OS)) == (NATIVE_USR | NATIVE_OS);
#endif
}

/* The event part of @str, "MEM_LOAD_RETIRED" of "mem_load_retired.x:u". */
static void event_part(const char *str, char *out, size_t size)
{
	size_t n = strcspn(str, ".:");

	snprintf(out, size, "%.*s", (int)n, str);
}

int native_encode(const char *str, struct native_encoding *enc, char *err,
		  size_t err_size)
{
	char name[320], event[80], near[160];
	__u64 codes[NATIVE_MAX_CODES];
	pfm_pmu_encode_arg_t arg;
	char *fstr = NULL;
	int ret;

	if (native_ready(err, err_size) < 0)
		return fail(errno == ENODEV ? EINVAL : errno, err, err_size,
			    "%s: unknown event (%s)", str, native.why);
	memset(enc, 0, sizeof(*enc));
	if (native_string(str, name, sizeof(name), &enc->modes, err,
			  err_size) < 0)
		return -1;

	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.codes = (uint64_t *)codes;
	arg.count = NATIVE_MAX_CODES;
	arg.fstr = &fstr;
	ret = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_NONE,
					&arg);
	if (ret == PFM_SUCCESS)
		event_and_umask(fstr, enc->event, sizeof(enc->event));
	free(fstr);
	if (ret == PFM_ERR_NOTFOUND) {
		event_part(str, event, sizeof(event));
		closest_event(event, near, sizeof(near));
		return fail(EINVAL, err, err_size, "%s: not an event of PMU %s "
			    "(%s)%s", str, native.pmu.name, native.pmu.desc,
			    near);
	}
	if (ret == PFM_ERR_ATTR || ret == PFM_ERR_ATTR_VAL ||
	    ret == PFM_ERR_UMASK) {
		closest_attr(name, near, sizeof(near));
		return fail(EINVAL, err, err_size, "%s: %s of PMU %s%s", str,
			    pfm_strerror(ret), native.pmu.name, near);
	}
	if (ret != PFM_SUCCESS)
		return fail(EINVAL, err, err_size, "%s: %s (libpfm4, PMU %s)",
			    str, pfm_strerror(ret), native.pmu.name);
	if (arg.count > 1)
		return fail(EOPNOTSUPP, err, err_size, "%s: needs a register "
			    "besides the selector (offcore response, load "
			    "latency or frontend), which perfctr does not "
			    "program", str);
	if (!libpfm_modes_both(codes[0]))
		return fail(EINVAL, err, err_size, "%s: a modifier sets the "
			    "modes in a way perfctr does not know: use :u, :k "
			    "or :uk", str);
	enc->code = codes[0];
	enc->vendor = native.vendor;
	enc->pmu = native.pmu.name;
	return 0;
}

const char *native_pmu_name(enum native_vendor *vendor)
{
	*vendor = NATIVE_OTHER;
	if (native_ready(NULL, 0) < 0)
		return NULL;
	*vendor = native.vendor;
	return native.pmu.name;
}
