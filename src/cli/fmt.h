/* fmt.h - the -o/-O format engine shared by sinfo and squeue.
 *
 * Parses "%[.][#][width]X<suffix>" strings (text before the first '%' is a
 * prefix printed on every line) and "Name[:[.]width][suffix]" -O lists
 * into fields that index the caller's letter table, and prints one cell
 * the way both tools' _print_str() does. The letter tables and their
 * value printers stay with each tool. Also the list helpers the tools'
 * filters share (comma lists, array task id lists).
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define FMT_LITERAL (-1) /* text only: the prefix */
#define FMT_INVALID (-2) /* unknown letter or name; see raw */

struct fmt_field {
	int id;	      /* index into the caller's table, or FMT_LITERAL/FMT_INVALID */
	char letter;  /* the letter as written ('\0' for -O fields) */
	int width;    /* 0: no width */
	bool right;   /* "." */
	bool autow;   /* "#": width of the longest value (sinfo only) */
	char *suffix; /* printed after the value (the text for FMT_LITERAL) */
	char *raw;    /* FMT_INVALID: the token as written ("%z", or the -O name) */
};

struct fmt_spec {
	struct fmt_field *v;
	size_t n;
};

/* Letter or -O name -> table index, or -1 when unknown. */
typedef int fmt_letter_fn(char c, const void *arg);
typedef int fmt_name_fn(const char *name, const void *arg);

/* Append the fields of a short format to *f. allow_auto accepts "%#X"
 * (sinfo); without it '#' is a letter like any other (squeue). "%%" is an
 * empty token and skipped, as strtok skips it. Returns 0 or -ENOMEM. */
int fmt_parse_short(struct fmt_spec *f, const char *s, bool allow_auto, fmt_letter_fn *fn,
		    const void *arg);
/* Append the fields of a -O list: comma separated "Name[:[.]width][suffix]",
 * width 20 when there is no ':'. Returns 0 or -ENOMEM. */
int fmt_parse_long(struct fmt_spec *f, const char *s, fmt_name_fn *fn, const void *arg);
void fmt_spec_done(struct fmt_spec *f);

/* One cell as Slurm's _print_str(): a left-justified value is cut to width
 * and padded; a right-justified one is padded, and cut too when cut is
 * set. width <= 0 prints the value as is. */
void fmt_put_cell(FILE *out, const char *s, int width, bool right, bool cut);

/* Slurm's convert_num_unit(CONVERT_NUM_UNIT_EXACT): raise the unit while
 * the value is >= 1024 and a multiple of 512 ("1536" -> "1.50K").
 * unit0 is the unit of v: 0 none (no suffix unless raised), 'K', 'M', ...
 * 0 prints "0" without a unit. Writes buf and returns it. */
char *fmt_num_unit(uint64_t v, char unit0, char *buf, size_t n);

/* Id lists as Slurm's bit_fmt() writes them ("1-3,5"; "1-9:2" is read
 * too), for array task sets. parse: sorted ids in a malloc'd array;
 * -EINVAL for anything else or more than 2^20 ids, -ENOMEM. format:
 * malloc'd, NULL on ENOMEM. has: id is in the list (false if malformed). */
int fmt_idset_parse(const char *s, uint32_t **ret, size_t *ret_n);
char *fmt_idset_format(const uint32_t *v, size_t n);
bool fmt_idset_has(const char *s, uint32_t id);

/* s is one of the comma-separated words of list (NULL s: false). */
bool fmt_list_has(const char *list, const char *s, bool icase);

/* "Wed Dec 02 08:52:03 2026\n" in local time (the first line of -l/-i). */
void fmt_print_date(FILE *out, time_t now);
/* t as that line has it ("Wed Dec 02 19:17:46 2026", local time) in buf;
 * NULL (buf empty) when it cannot be. */
char *fmt_date(time_t t, char *buf, size_t n);
