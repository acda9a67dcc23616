/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading perfex's output back in the tests: a line of a text, CSV
 * fields, and a flat JSON object, strictly.
 */
#ifndef PERFEX_TESTS_PARSE_H
#define PERFEX_TESTS_PARSE_H

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <libperfctr.h>

/*
 * Why libperfctr has no native events here, as its messages say it: the
 * tests force LIBPFM_FORCE_PMU=nosuch, so that no host's PMU counts.
 */
static inline const char *native_why(void)
{
	static char why[PERFCTR_EVENT_ERROR_SIZE];
	struct perfctr_native_pmu pmu;

	if (!why[0] && perfctr_native_pmu(&pmu, why, sizeof(why)) == 0)
		snprintf(why, sizeof(why), "PMU %s", pmu.name);
	return why;
}

#define MAX_FIELDS	16
#define FIELD_SIZE	64

/* Line @n (from 0) of @text, without its newline, into @line. */
static inline int nth_line(const char *text, unsigned int n, char *line,
		    size_t size)
{
	const char *end;

	for (; n; n--) {
		text = strchr(text, '\n');
		if (!text)
			return -1;
		text++;
	}
	end = strchr(text, '\n');
	if (!end || (size_t)(end - text) >= size)
		return -1;
	memcpy(line, text, end - text);
	line[end - text] = '\0';
	return 0;
}

/* @line split at every @sep; the number of fields. */
static inline int csv_split(const char *line, const char *sep,
		     char field[MAX_FIELDS][FIELD_SIZE])
{
	size_t seplen = strlen(sep), len;
	const char *next;
	int n = 0;

	for (;;) {
		if (n == MAX_FIELDS)
			return -1;
		next = strstr(line, sep);
		len = next ? (size_t)(next - line) : strlen(line);
		if (len >= FIELD_SIZE)
			return -1;
		memcpy(field[n], line, len);
		field[n++][len] = '\0';
		if (!next)
			return n;
		line = next + seplen;
	}
}

/*
 * A flat JSON object, strictly: { "key" : value, ... } with values
 * strings or numbers.  Keys and values (unquoted, unescaped) go to
 * @key and @value; the number of members, or -1 if it is not JSON.
 */
struct member {
	char key[FIELD_SIZE];
	char value[FIELD_SIZE];
	int is_string;
};

static inline const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static inline const char *json_string(const char *p, char *out)
{
	size_t len = 0;

	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		if (!*p || (unsigned char)*p < 0x20 || len + 1 >= FIELD_SIZE)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p != '"' && *p != '\\')
				return NULL;	/* not needed here */
		}
		out[len++] = *p++;
	}
	out[len] = '\0';
	return p + 1;
}

static inline const char *json_number(const char *p, char *out)
{
	const char *start = p;

	if (*p == '-')
		p++;
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if ((size_t)(p - start) >= FIELD_SIZE)
		return NULL;
	memcpy(out, start, p - start);
	out[p - start] = '\0';
	return p;
}

static inline int json_parse(const char *p, struct member *m, int max)
{
	int n = 0;

	p = skip_ws(p);
	if (*p++ != '{')
		return -1;
	p = skip_ws(p);
	if (*p == '}')
		return *skip_ws(p + 1) ? -1 : 0;
	for (;;) {
		if (n == max)
			return -1;
		p = json_string(skip_ws(p), m[n].key);
		if (!p)
			return -1;
		p = skip_ws(p);
		if (*p++ != ':')
			return -1;
		p = skip_ws(p);
		m[n].is_string = *p == '"';
		p = m[n].is_string ? json_string(p, m[n].value) :
				     json_number(p, m[n].value);
		if (!p)
			return -1;
		n++;
		p = skip_ws(p);
		if (*p == '}')
			return *skip_ws(p + 1) ? -1 : n;
		if (*p++ != ',')
			return -1;
	}
}

static inline const struct member *member(const struct member *m, int n,
				   const char *key)
{
	int i;

	for (i = 0; i < n; i++) {
		if (strcmp(m[i].key, key) == 0)
			return &m[i];
	}
	return NULL;
}

#endif /* PERFEX_TESTS_PARSE_H */
