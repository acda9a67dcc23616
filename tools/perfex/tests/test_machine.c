// SPDX-License-Identifier: GPL-2.0
/*
 * The report for machines, -x SEP and --json: its exact form, and its
 * numbers read back and set against those of the human report.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "parse.h"
#include "tap.h"
#include "topdown.h"

#define COUNT(n, v, c, k) \
	{ .name = (n), .value = (v), .children = (c), .kind = (k) }

enum style { HUMAN, CSV, JSON };

static char *report_text(const struct perfex_report *report, enum style style,
			 const char *sep)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	if (style == CSV)
		perfex_print_report_csv(out, report, sep);
	else if (style == JSON)
		perfex_print_report_json(out, report);
	else
		perfex_print_report(out, report);
	fclose(out);
	return text;
}

/* What a human report line says: its cells, name, figure and noise. */
struct human {
	char cell[3][FIELD_SIZE];	/* digits only, commas taken out */
	int cells;
	int msec;
	char name[FIELD_SIZE];
	char number[FIELD_SIZE];	/* the figure's, '%' taken out */
	char unit[FIELD_SIZE];
	char noise[FIELD_SIZE];		/* "0.12%" */
};

static void strip(char *s, const char *chars)
{
	char *d = s;

	for (; *s; s++) {
		if (!strchr(chars, *s))
			*d++ = *s;
	}
	*d = '\0';
}

/* The line of the human report about event @name. */
static int human_line(const char *text, const char *name, struct human *h)
{
	char line[256], *tok, *save;
	unsigned int i;

	for (i = 0; nth_line(text, i, line, sizeof(line)) == 0; i++) {
		memset(h, 0, sizeof(*h));
		tok = strtok_r(line, " ", &save);
		while (tok && strspn(tok, "0123456789,.") == strlen(tok) &&
		       h->cells < 3) {
			snprintf(h->cell[h->cells], FIELD_SIZE, "%s", tok);
			strip(h->cell[h->cells++], ",");
			tok = strtok_r(NULL, " ", &save);
		}
		if (tok && strcmp(tok, "msec") == 0) {
			h->msec = 1;
			tok = strtok_r(NULL, " ", &save);
		}
		if (!h->cells || !tok || strcmp(tok, name) != 0)
			continue;
		snprintf(h->name, FIELD_SIZE, "%s", tok);
		tok = strtok_r(NULL, " ", &save);
		if (tok && strcmp(tok, "#") == 0) {
			tok = strtok_r(NULL, " ", &save);
			snprintf(h->number, FIELD_SIZE, "%s", tok);
			strip(h->number, "%");
			while ((tok = strtok_r(NULL, " ", &save)) &&
			       strcmp(tok, "(") != 0) {
				if (h->unit[0])
					strcat(h->unit, " ");
				strncat(h->unit, tok, 30);
			}
		}
		if (tok && strcmp(tok, "(") == 0) {
			strtok_r(NULL, " ", &save);	/* "+-" */
			tok = strtok_r(NULL, " ", &save);
			snprintf(h->noise, FIELD_SIZE, "%s", tok);
		}
		return 0;
	}
	return -1;
}

/* How many decimals @number has. */
static int decimals(const char *number)
{
	const char *dot = strchr(number, '.');

	return dot ? (int)strlen(dot + 1) : 0;
}

/* Does @precise round to @shown, as printed? */
static int rounds_to(const char *precise, const char *shown)
{
	return fabs(strtod(precise, NULL) - strtod(shown, NULL)) <=
	       0.5 * pow(10, -decimals(shown)) + 1e-9;
}

static char *command[] = { "forker", "4", "256", NULL };

static struct perfex_count counts[] = {
	COUNT("task-clock", 8123456, 21345678, PERFEX_COUNT_TASK_CLOCK),
	COUNT("context-switches", 1, 8, PERFEX_COUNT_EVENTS),
	COUNT("cpu-migrations", 0, 3, PERFEX_COUNT_EVENTS),
	COUNT("page-faults:u", 41, 1100, PERFEX_COUNT_EVENTS),
	COUNT("tsc", 24370368, 64037034, PERFEX_COUNT_PLAIN),
	COUNT("cycles", 60000000, 20000000, PERFEX_COUNT_EVENTS),
	COUNT("instructions", 90000000, 9000000, PERFEX_COUNT_EVENTS),
	COUNT("branches", 9000000, 0, PERFEX_COUNT_EVENTS),
	COUNT("branch-misses", 123456, 0, PERFEX_COUNT_EVENTS),
};

#define NR_COUNTS	(sizeof(counts) / sizeof(counts[0]))

static struct perfex_report report = {
	.command = command,
	.counts = counts,
	.nr_counts = NR_COUNTS,
	.elapsed_ns = 14760000,
	.user_ns = 1000000,
	.sys_ns = 24000000,
};

static void test_csv_form(void)
{
	char *text = report_text(&report, CSV, ",");
	char line[256];

	nth_line(text, 0, line, sizeof(line));
	tap_is_str(line, "29.47,msec,task-clock,14760000,100.00,1.997,"
		   "CPUs utilized,8.12,21.35", "csv: task-clock line");
	nth_line(text, 4, line, sizeof(line));
	tap_is_str(line, "88407402,,tsc,14760000,100.00,,,24370368,64037034",
		   "csv: no figure: two empty fields");
	nth_line(text, 6, line, sizeof(line));
	tap_is_str(line, "99000000,,instructions,14760000,100.00,1.24,"
		   "insn per cycle,90000000,9000000", "csv: insn per cycle");
	tap_ok(nth_line(text, NR_COUNTS, line, sizeof(line)) < 0,
	       "csv: one line per count, nothing else");
	free(text);

	counts[0].children = 0;
	report.nr_counts = 1;
	text = report_text(&report, CSV, ";;");
	tap_is_str(text, "8.12;;msec;;task-clock;;14760000;;100.00;;0.550;;"
		   "CPUs utilized\n",
		   "csv: separator of two characters; no children, no columns");
	free(text);

	report.runs = 3;
	counts[0].noise = 1.234;
	text = report_text(&report, CSV, ",");
	tap_is_str(text, "8.12,msec,task-clock,1.23%,14760000,100.00,0.550,"
		   "CPUs utilized\n", "csv: -r: the variance after the event");
	free(text);
	report.runs = 0;
	counts[0].noise = 0;
	counts[0].children = 21345678;
	report.nr_counts = NR_COUNTS;
}

static void test_json_form(void)
{
	char *text = report_text(&report, JSON, NULL);
	char line[512];

	nth_line(text, 0, line, sizeof(line));
	tap_is_str(line, "{\"counter-value\" : \"29.469134\", \"unit\" : "
		   "\"msec\", \"event\" : \"task-clock\", \"event-runtime\" : "
		   "14760000, \"pcnt-running\" : 100.00, \"metric-value\" : "
		   "\"1.996554\", \"metric-unit\" : \"CPUs utilized\", "
		   "\"self\" : \"8.123456\", \"children\" : \"21.345678\"}",
		   "json: task-clock, exact to the ns");
	nth_line(text, 4, line, sizeof(line));
	tap_is_str(line, "{\"counter-value\" : \"88407402.000000\", \"unit\" : "
		   "\"\", \"event\" : \"tsc\", \"event-runtime\" : 14760000, "
		   "\"pcnt-running\" : 100.00, \"self\" : \"24370368.000000\", "
		   "\"children\" : \"64037034.000000\"}",
		   "json: no figure, no metric members");
	tap_ok(nth_line(text, NR_COUNTS, line, sizeof(line)) < 0,
	       "json: one line per count, nothing else");
	free(text);

	counts[3].name = "odd\"name\\";
	text = report_text(&report, JSON, NULL);
	tap_ok(strstr(text, "\"event\" : \"odd\\\"name\\\\\"") != NULL,
	       "json: quotes and backslashes escaped");
	free(text);
	counts[3].name = "page-faults:u";
}

/* Every number of -x and --json against the human report's. */
static void test_same_numbers(const char *what)
{
	char *human = report_text(&report, HUMAN, NULL);
	char *csv = report_text(&report, CSV, "|");
	char *json = report_text(&report, JSON, NULL);
	char field[MAX_FIELDS][FIELD_SIZE], line[512];
	int children = report.counts[0].children != 0;
	int noise = report.runs > 1, bad_csv = 0, bad_json = 0, n, k;
	const struct member *v;
	struct member m[MAX_FIELDS];
	struct human h;
	unsigned int i;

	for (i = 0; i < report.nr_counts; i++) {
		const char *name = report.counts[i].name;

		if (human_line(human, name, &h) < 0 ||
		    nth_line(csv, i, line, sizeof(line)) < 0) {
			bad_csv++;
			continue;
		}
		n = csv_split(line, "|", field);
		k = noise;	/* the variance shifts what follows */
		if (n != 7 + noise + 2 * children ||
		    strcmp(field[0], h.cell[h.cells - 1]) ||
		    strcmp(field[1], h.msec ? "msec" : "") ||
		    strcmp(field[2], name) ||
		    (noise && h.noise[0] && strcmp(field[3], h.noise)) ||
		    strcmp(field[5 + k], h.number) ||
		    strcmp(field[6 + k], h.unit) ||
		    (children && (strcmp(field[7 + k], h.cell[0]) ||
				  strcmp(field[8 + k], h.cell[1]))))
			bad_csv++;

		if (nth_line(json, i, line, sizeof(line)) < 0 ||
		    (n = json_parse(line, m, MAX_FIELDS)) < 0) {
			bad_json++;
			continue;
		}
		if (!(v = member(m, n, "counter-value")) || !v->is_string ||
		    !rounds_to(v->value, h.cell[h.cells - 1]) ||
		    !(v = member(m, n, "event")) || strcmp(v->value, name) ||
		    !(v = member(m, n, "unit")) ||
		    strcmp(v->value, h.msec ? "msec" : ""))
			bad_json++;
		v = member(m, n, "metric-value");
		if (h.number[0] ? !v || !rounds_to(v->value, h.number) : !!v)
			bad_json++;
		v = member(m, n, "metric-unit");
		if (h.unit[0] ? !v || strcmp(v->value, h.unit) : !!v)
			bad_json++;
		v = member(m, n, "variance");
		if (noise ? !v || (h.noise[0] && !rounds_to(v->value, h.noise))
			  : !!v)
			bad_json++;
		if (children &&
		    (!(v = member(m, n, "self")) ||
		     !rounds_to(v->value, h.cell[0]) ||
		     !(v = member(m, n, "children")) ||
		     !rounds_to(v->value, h.cell[1])))
			bad_json++;
	}
	tap_is_int(bad_csv, 0, "%s: -x: the human report's numbers", what);
	tap_is_int(bad_json, 0, "%s: --json: valid, the human report's "
		   "numbers", what);
	free(human);
	free(csv);
	free(json);
}

static void test_interval_forms(void)
{
	struct perfex_interval iv = {
		.time_ns = 2000123456,
		.length_ns = 1000000000,
		.index = 1,
		.counts = counts,
		.nr_counts = 1,
	};
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	counts[0].children = 0;
	perfex_print_interval_csv(out, &iv, ",");
	perfex_print_interval_json(out, &iv);
	fclose(out);
	tap_is_str(text, "2.000123456,8.12,msec,task-clock,1000000000,100.00,"
		   "0.008,CPUs utilized\n"
		   "{\"interval\" : 2.000123456, \"counter-value\" : "
		   "\"8.123456\", \"unit\" : \"msec\", \"event\" : "
		   "\"task-clock\", \"event-runtime\" : 1000000000, "
		   "\"pcnt-running\" : 100.00, \"metric-value\" : \"0.008123\","
		   " \"metric-unit\" : \"CPUs utilized\"}\n",
		   "interval: time first, in CSV and JSON");
	free(text);
	counts[0].children = 21345678;
}

/*
 * --topdown: after the counts, the slots, then each category with its
 * slots and its share of them; the level 2 rests named as the report
 * names them.  Made up: 12e9 slots split 30, 10, 20 and 40%; the
 * children 4e9 slots, a quarter each.
 */
static void test_topdown_forms(void)
{
	struct perfex_count td_counts[] = {
		COUNT("slots:u", 12000000000ull, 0, PERFEX_COUNT_EVENTS),
		COUNT("topdown-retiring:u", 3600000000ull, 0,
		      PERFEX_COUNT_EVENTS),
		COUNT("topdown-bad-spec:u", 1200000000ull, 0,
		      PERFEX_COUNT_EVENTS),
		COUNT("topdown-fe-bound:u", 2400000000ull, 0,
		      PERFEX_COUNT_EVENTS),
		COUNT("topdown-be-bound:u", 4800000000ull, 0,
		      PERFEX_COUNT_EVENTS),
		COUNT("topdown-heavy-ops:u", 1200000000ull, 0,
		      PERFEX_COUNT_EVENTS),
		COUNT("topdown-br-mispredict:u", 960000000ull, 0,
		      PERFEX_COUNT_EVENTS),
		COUNT("topdown-fetch-lat:u", 1440000000ull, 0,
		      PERFEX_COUNT_EVENTS),
		COUNT("topdown-mem-bound:u", 3000000000ull, 0,
		      PERFEX_COUNT_EVENTS),
	};
	struct perfex_report td_report = {
		.counts = counts,
		.nr_counts = 1,
		.elapsed_ns = 2500000000ull,
	};
	struct perfex_interval iv = {
		.time_ns = 2000123456,
		.length_ns = 1000000000,
		.index = 1,
		.counts = td_counts,
	};
	struct perfex_topdown td;
	char *text = NULL;
	size_t size = 0;
	FILE *out;
	unsigned int i;

	counts[0].children = 0;
	perfex_topdown_of(&td, td_counts, 9);
	td_report.topdown = &td;
	text = report_text(&td_report, CSV, ",");
	tap_is_str(text,
		   "8.12,msec,task-clock,2500000000,100.00,0.003,CPUs utilized\n"
		   "12000000000,,slots:u,2500000000,100.00,,\n"
		   "3600000000,,topdown-retiring:u,2500000000,100.00,30.0,retiring\n"
		   "1200000000,,topdown-bad-spec:u,2500000000,100.00,10.0,bad speculation\n"
		   "2400000000,,topdown-fe-bound:u,2500000000,100.00,20.0,frontend bound\n"
		   "4800000000,,topdown-be-bound:u,2500000000,100.00,40.0,backend bound\n"
		   "1200000000,,topdown-heavy-ops:u,2500000000,100.00,10.0,heavy operations\n"
		   "960000000,,topdown-br-mispredict:u,2500000000,100.00,8.0,branch mispredicts\n"
		   "1440000000,,topdown-fetch-lat:u,2500000000,100.00,12.0,fetch latency\n"
		   "3000000000,,topdown-mem-bound:u,2500000000,100.00,25.0,memory bound\n"
		   "2400000000,,topdown-light-ops:u,2500000000,100.00,20.0,light operations\n"
		   "240000000,,topdown-machine-clears:u,2500000000,100.00,2.0,machine clears\n"
		   "960000000,,topdown-fetch-bw:u,2500000000,100.00,8.0,fetch bandwidth\n"
		   "1800000000,,topdown-core-bound:u,2500000000,100.00,15.0,core bound\n",
		   "topdown csv: the slots, then each category, its share as "
		   "its metric");
	free(text);

	text = report_text(&td_report, JSON, NULL);
	tap_ok(strstr(text,
		      "{\"counter-value\" : \"12000000000.000000\", \"unit\" : \"\", \"event\" : \"slots:u\", \"event-runtime\" : 2500000000, \"pcnt-running\" : 100.00}\n"
		      "{\"counter-value\" : \"3600000000.000000\", \"unit\" : \"\", \"event\" : \"topdown-retiring:u\", \"event-runtime\" : 2500000000, \"pcnt-running\" : 100.00, \"metric-value\" : \"30.000000\", \"metric-unit\" : \"retiring\"}\n") &&
	       strstr(text,
		      "{\"counter-value\" : \"1800000000.000000\", \"unit\" : \"\", \"event\" : \"topdown-core-bound:u\", \"event-runtime\" : 2500000000, \"pcnt-running\" : 100.00, \"metric-value\" : \"15.000000\", \"metric-unit\" : \"core bound\"}\n") &&
	       nth_line(text, 14, (char [8]){ 0 }, 8) < 0,
	       "topdown json: the slots, then each category, its share as "
	       "its metric");
	free(text);

	/* Children: the categories' self and children fields too. */
	td_counts[0].children = 4000000000ull;
	for (i = 1; i <= 4; i++)
		td_counts[i].children = 1000000000ull;
	perfex_topdown_of(&td, td_counts, 5);
	text = report_text(&td_report, CSV, ",");
	tap_ok(strstr(text, "\n16000000000,,slots:u,2500000000,100.00,,,"
		      "12000000000,4000000000\n"
		      "4600000000,,topdown-retiring:u,2500000000,100.00,28.8,"
		      "retiring,3600000000,1000000000\n") &&
	       strstr(text, "8.12,msec,task-clock,2500000000,100.00,0.003,"
		      "CPUs utilized,8.12,0.00\n") == text,
	       "topdown csv: children: self and children fields, the "
	       "counts' too");
	free(text);

	/* -I: the time first, as for the counts. */
	text = NULL;
	out = open_memstream(&text, &size);
	td_counts[0].children = 0;
	for (i = 1; i <= 4; i++)
		td_counts[i].children = 0;
	td_counts[2].not_counted = 1;
	perfex_topdown_of(&td, td_counts, 5);
	iv.topdown = &td;
	perfex_print_interval_csv(out, &iv, ";");
	perfex_print_interval_json(out, &iv);
	fclose(out);
	tap_is_str(text,
		   "2.000123456;12000000000;;slots:u;1000000000;100.00;;\n"
		   "2.000123456;3600000000;;topdown-retiring:u;1000000000;100.00;30.0;retiring\n"
		   "2.000123456;<not counted>;;topdown-bad-spec:u;1000000000;100.00;;\n"
		   "2.000123456;2400000000;;topdown-fe-bound:u;1000000000;100.00;20.0;frontend bound\n"
		   "2.000123456;4800000000;;topdown-be-bound:u;1000000000;100.00;40.0;backend bound\n"
		   "{\"interval\" : 2.000123456, \"counter-value\" : \"12000000000.000000\", \"unit\" : \"\", \"event\" : \"slots:u\", \"event-runtime\" : 1000000000, \"pcnt-running\" : 100.00}\n"
		   "{\"interval\" : 2.000123456, \"counter-value\" : \"3600000000.000000\", \"unit\" : \"\", \"event\" : \"topdown-retiring:u\", \"event-runtime\" : 1000000000, \"pcnt-running\" : 100.00, \"metric-value\" : \"30.000000\", \"metric-unit\" : \"retiring\"}\n"
		   "{\"interval\" : 2.000123456, \"counter-value\" : \"<not counted>\", \"unit\" : \"\", \"event\" : \"topdown-bad-spec:u\", \"event-runtime\" : 1000000000, \"pcnt-running\" : 100.00}\n"
		   "{\"interval\" : 2.000123456, \"counter-value\" : \"2400000000.000000\", \"unit\" : \"\", \"event\" : \"topdown-fe-bound:u\", \"event-runtime\" : 1000000000, \"pcnt-running\" : 100.00, \"metric-value\" : \"20.000000\", \"metric-unit\" : \"frontend bound\"}\n"
		   "{\"interval\" : 2.000123456, \"counter-value\" : \"4800000000.000000\", \"unit\" : \"\", \"event\" : \"topdown-be-bound:u\", \"event-runtime\" : 1000000000, \"pcnt-running\" : 100.00, \"metric-value\" : \"40.000000\", \"metric-unit\" : \"backend bound\"}\n",
		   "topdown interval: the time first, in CSV and JSON; not "
		   "counted, no share");
	free(text);
	counts[0].children = 21345678;
}

int main(void)
{
	unsigned int i;

	test_csv_form();
	test_json_form();
	test_interval_forms();
	test_topdown_forms();
	test_same_numbers("children");
	for (i = 0; i < NR_COUNTS; i++)
		counts[i].children = 0;
	test_same_numbers("no children");
	report.runs = 7;
	for (i = 0; i < NR_COUNTS; i++)
		counts[i].noise = 0.5 + i;
	report.elapsed_stddev_ns = 1000;
	test_same_numbers("-r 7");
	counts[2].value = 18446744073709551615ull;
	test_same_numbers("a count of 2^64-1");
	return tap_done();
}
