/* task_stdio.h - a step's tasks' stdin/stdout/stderr: pipes to the
 * stepd, or srun's -o/-e/-i files opened as the user.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stepd;

int task_stdio_open(struct stepd *s); /* a step's pipes or files for every task */
