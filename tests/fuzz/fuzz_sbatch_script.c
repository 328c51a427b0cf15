/* fuzz_sbatch_script.c - libFuzzer target: a batch script as sbatch
 * reads it: the sanity checks, the #SBATCH directives (quotes,
 * backslashes, comments) and their application as options. Errors are
 * text for the user; nothing may crash, leak or take quadratic time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/job_opt.h"
#include "cli/sbatch_script.h"
#include "fuzz_str.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbatch_directives d = {0};
	struct job_opt_err e;
	struct job_opts o;
	char *buf;

	if (size > (1u << 20))
		return 0;
	buf = fuzz_str(data, size);
	if (!buf)
		return 0;
	memset(&e, 0, sizeof(e));
	(void)sbatch_script_check("sbatch", buf, size, &e);
	memset(&e, 0, sizeof(e));
	if (sbatch_script_directives("sbatch", buf, size, "fuzz.sh", &d, &e) == 0) {
		memset(&e, 0, sizeof(e));
		if (job_opts_init(&o, "sbatch") == 0) {
			(void)sbatch_script_apply(&o, &d, &e);
			job_opts_done(&o);
		}
	}
	sbatch_directives_done(&d);
	free(buf);
	return 0;
}
