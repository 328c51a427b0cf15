/* gpu_task.h - each task's GPUs under --gpu-bind (gpu_task.c). */
#pragma once
#include <stdint.h>

struct stepd;

/* Before task ltid's child is made (after env_task()): its own GPU
 * variables when a binding asks for them, and s->gpu_verbose with the
 * --gpu-bind=verbose line its child prints. 0 or -ENOMEM. */
int gpu_task_env(struct stepd *s, uint32_t ltid);
