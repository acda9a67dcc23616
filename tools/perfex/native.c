// SPDX-License-Identifier: GPL-2.0
/*
 * perfex -l's native events: libpfm4's tables of the CPU's PMU, as
 * libperfctr gives them, one EVENT.UMASK a line under its event, as
 * perf list and papi_native_avail show theirs.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <libperfctr.h>

#include "native.h"

#define DESC_WIDTH	66	/* a one-line description, at most */

/**
 * perfex_name_holds - does @name hold @word, in any case?
 * @name: an event's name
 * @word: what perfex -l looks for; NULL: anything
 */
int perfex_name_holds(const char *name, const char *word)
{
	size_t n;

	if (!word)
		return 1;
	n = strlen(word);
	for (; *name; name++)
		if (!strncasecmp(name, word, n))
			return 1;
	return 0;
}

/* Does @name, or @name.@umask, hold @filter? */
static int matches(const char *filter, const char *name, const char *umask)
{
	char both[256];

	snprintf(both, sizeof(both), "%s.%s", name, umask ? umask : "");
	return perfex_name_holds(both, filter);
}

/* @text on one line: cut at a word before DESC_WIDTH, "..." after. */
static void one_line(FILE *out, const char *indent, const char *text)
{
	int len = strcspn(text, "\n");

	if (len > DESC_WIDTH) {
		len = DESC_WIDTH - 3;
		while (len > 20 && text[len] != ' ')
			len--;
		fprintf(out, "%s%.*s...\n", indent, len, text);
		return;
	}
	fprintf(out, "%s%.*s\n", indent, len, text);
}

static const char *attr_form(const struct perfctr_native_attr *a)
{
	switch (a->type) {
	case PERFCTR_NATIVE_NUMBER:
		return "=N";
	default:
		return "";
	}
}

/* Event @index, its unit masks, and with @verbose its modifiers. */
static int list_event(FILE *out, unsigned int index,
		      const struct perfctr_native_event *ev,
		      const char *filter, int verbose)
{
	struct perfctr_native_attr a;
	char name[160];
	unsigned int i, umasks = 0, shown = 0;

	for (i = 0; i < ev->nattrs && !perfctr_native_attr(index, i, &a); i++)
		if (a.type == PERFCTR_NATIVE_UMASK)
			umasks++;
	if (!matches(filter, ev->name, NULL) && umasks == 0)
		return 0;
	for (i = 0; i < ev->nattrs && !perfctr_native_attr(index, i, &a); i++) {
		if (a.type != PERFCTR_NATIVE_UMASK ||
		    (!matches(filter, ev->name, a.name) &&
		     !matches(filter, ev->name, NULL)))
			continue;
		if (!shown++) {
			fprintf(out, "  %s\n", ev->name);
			if (verbose)
				fprintf(out, "       %s\n", ev->description);
			else
				one_line(out, "       ", ev->description);
		}
		snprintf(name, sizeof(name), "%s.%s%s", ev->name, a.name,
			 a.is_default ? " (default)" : "");
		fprintf(out, "    %s\n", name);
		if (verbose)
			fprintf(out, "         %s\n", a.description);
		else
			one_line(out, "         ", a.description);
	}
	if (umasks == 0 && matches(filter, ev->name, NULL)) {
		shown++;
		fprintf(out, "  %s\n", ev->name);
		if (verbose)
			fprintf(out, "       %s\n", ev->description);
		else
			one_line(out, "       ", ev->description);
	}
	if (!shown || !verbose)
		return shown > 0;
	fprintf(out, "       modifiers:");
	for (i = 0; i < ev->nattrs && !perfctr_native_attr(index, i, &a); i++)
		if (a.type != PERFCTR_NATIVE_UMASK)
			fprintf(out, " :%s%s", a.name, attr_form(&a));
	fprintf(out, "\n");
	for (i = 0; i < ev->nattrs && !perfctr_native_attr(index, i, &a); i++) {
		if (a.type == PERFCTR_NATIVE_UMASK)
			continue;
		snprintf(name, sizeof(name), ":%s%s", a.name, attr_form(&a));
		fprintf(out, "         %-9s %s\n", name, a.description);
	}
	return 1;
}

/**
 * perfex_list_native - perfex -l's native events
 * @out: where to
 * @filter: list only names holding it, in any case; NULL: all
 * @verbose: --long: whole descriptions, and each event's modifiers
 *
 * Return: the number of events listed, or -1 if there are none to list:
 * libperfctr's message then says why, on @out.
 */
int perfex_list_native(FILE *out, const char *filter, int verbose)
{
	struct perfctr_native_event ev;
	struct perfctr_native_pmu pmu;
	char err[PERFCTR_EVENT_ERROR_SIZE];
	unsigned int i;
	int n = 0;

	if (perfctr_native_pmu(&pmu, err, sizeof(err)) < 0) {
		fprintf(out, "No native events: %s.\n\n", err);
		return -1;
	}
	fprintf(out, "Native events of PMU %s (%s), from libpfm4%s.\n"
		"-e takes EVENT.UMASK or EVENT:UMASK, then :u, :k, :uk or "
		"libpfm4's\nmodifiers (-l --long lists each event's):\n\n",
		pmu.name, pmu.description,
		pmu.forced ? " (forced by LIBPFM_FORCE_PMU)" : "");
	for (i = 0; !perfctr_native_event(i, &ev); i++)
		n += list_event(out, i, &ev, filter, verbose);
	if (!n && filter)
		fprintf(out, "  (none with '%s' in its name)\n", filter);
	fprintf(out, "\n");
	return n;
}

/**
 * perfex_list_pmus - perfex -l --pmus: the PMUs LIBPFM_FORCE_PMU takes
 * @out: where to
 *
 * Return: 0, or -1 if libperfctr has no libpfm4.
 */
int perfex_list_pmus(FILE *out)
{
	struct perfctr_native_pmu pmu;
	unsigned int i;

	if (perfctr_native_pmu_supported(0, &pmu) < 0)
		return -1;
	fprintf(out, "The core PMUs of libpfm4, for LIBPFM_FORCE_PMU:\n\n");
	for (i = 0; !perfctr_native_pmu_supported(i, &pmu); i++)
		fprintf(out, "  %-24s %s\n", pmu.name, pmu.description);
	fprintf(out, "\n");
	return 0;
}

/**
 * perfex_native_info - perfex -i's line on native events
 * @out: where to
 */
void perfex_native_info(FILE *out)
{
	struct perfctr_native_pmu pmu;
	char err[PERFCTR_EVENT_ERROR_SIZE];

	if (perfctr_native_pmu(&pmu, err, sizeof(err)) < 0)
		fprintf(out, "native events: none: %s\n", err);
	else
		fprintf(out, "native events: libpfm4 PMU %s (%s)%s\n", pmu.name,
			pmu.description, pmu.forced ?
			" (forced by LIBPFM_FORCE_PMU)" : "");
}
