/* www.c - the dashboard's files (www.h). */
#include "slurmrestd/www.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/macros.h"

/* cmake/embed.cmake */
extern const unsigned char www_index_html[], www_dashboard_js[], www_dashboard_css[];
extern const size_t www_index_html_len, www_dashboard_js_len, www_dashboard_css_len;

#define WWW_CHARTJS_MAX (4u << 20)

enum { WWW_INDEX, WWW_INDEX2, WWW_JS, WWW_CSS, WWW_CHART, WWW_COUNT };

struct www {
	struct www_file files[WWW_COUNT];
	unsigned char *chart;
};

const char www_csp[] = "default-src 'self'; script-src 'self'; style-src 'self'; "
		       "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; "
		       "base-uri 'none'; form-action 'self'";

/* The whole of a regular file of at most max bytes, or NULL. */
static unsigned char *read_small_file(const char *path, size_t max, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	unsigned char *buf = NULL;

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= max) {
		buf = malloc((size_t)st.st_size + 1);
		if (buf && fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
			free(buf);
			buf = NULL;
		}
		if (buf)
			*ret_len = (size_t)st.st_size;
	} else {
		errno = EFBIG;
	}
	fclose(f);
	return buf;
}

struct www *www_new(const char *chartjs)
{
	struct www *w = calloc(1, sizeof(*w));
	size_t len = 0;

	if (!w)
		return NULL;
	w->files[WWW_INDEX] = (struct www_file){ "/", "text/html; charset=utf-8",
						 www_index_html, www_index_html_len };
	w->files[WWW_INDEX2] = w->files[WWW_INDEX];
	w->files[WWW_INDEX2].path = "/index.html";
	w->files[WWW_JS] = (struct www_file){ "/dashboard.js", "text/javascript; charset=utf-8",
					      www_dashboard_js, www_dashboard_js_len };
	w->files[WWW_CSS] = (struct www_file){ "/dashboard.css", "text/css; charset=utf-8",
					       www_dashboard_css, www_dashboard_css_len };
	if (!chartjs)
		chartjs = WWW_CHARTJS_PATH;
	w->chart = read_small_file(chartjs, WWW_CHARTJS_MAX, &len);
	if (!w->chart)
		error("dashboard: cannot read %s (%m): install libjs-chart.js; the page "
		      "will load without its charts", chartjs);
	w->files[WWW_CHART] = (struct www_file){ "/chart.js", "text/javascript; charset=utf-8",
						 w->chart, w->chart ? len : 0 };
	return w;
}

void www_free(struct www *w)
{
	if (!w)
		return;
	free(w->chart);
	free(w);
}

const struct www_file *www_find(const struct www *w, const char *path)
{
	for (size_t i = 0; i < ARRAY_SIZE(w->files); i++)
		if (w->files[i].data && !strcmp(w->files[i].path, path))
			return &w->files[i];
	return NULL;
}
