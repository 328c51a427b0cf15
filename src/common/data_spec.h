/* data_spec.h - the OpenAPI 3.0 document of the v0.0.38 API this cluster
 * serves (slurmrestd's GET /openapi/v3, tests/tools/openapi_dump).
 *
 * Record schemas come from the serializers' own tables (dout_schema), so
 * what --json writes and what the spec says cannot drift apart; schema
 * names are Slurm's ("v0.0.38_job_response_properties", ...). Members that
 * may be null carry "nullable": true.
 */
#pragma once
#include "common/data_out.h"

/* The whole spec as one document (d at the top level). */
void data_openapi_v0038(struct dout *d);
