/* www.h - the dashboard's files: the page, its script and style sheet
 * (embedded in the binary at build time, cmake/embed.cmake) and Chart.js,
 * read once at start from Debian's libjs-chart.js rather than copied. */
#pragma once
#include <stddef.h>

/* Where Debian's libjs-chart.js puts its UMD build. */
#define WWW_CHARTJS_PATH "/usr/share/javascript/chart.js/chart.min.js"

struct www_file {
	const char *path; /* "/", "/dashboard.js", ... */
	const char *type; /* Content-Type */
	const unsigned char *data;
	size_t len;
};

struct www;

/* chartjs: the file to serve as /chart.js (NULL: WWW_CHARTJS_PATH). A
 * missing or unreadable file is logged; the page then says it cannot draw. */
struct www *www_new(const char *chartjs);
void www_free(struct www *w); /* NULL-safe */
/* The file served at path (GET/HEAD), or NULL. */
const struct www_file *www_find(const struct www *w, const char *path);
/* The headers every answer of the dashboard carries: no script or style
 * from elsewhere, no framing, no sniffing. */
extern const char www_csp[];
