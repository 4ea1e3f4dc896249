/* exec_backend.h: the device operations of the solution's process (cudalab-exec), with two
 * implementations like the judge's backend.h:
 *   exec_cuda.cu  maps CUDA VMM descriptors; a call is enqueued behind the judge's go word
 *                 and followed by a write of the done word (stream memory operations; done
 *                 lies in the judge's host memory), so
 *                 the judge brackets it with a clock the solution cannot reach
 *   exec_host.c   maps memfds; a call is made when the judge says LM_GO
 * Each returns 0 or -1 with the reason in err. */
#ifndef CUDALAB_EXEC_BACKEND_H
#define CUDALAB_EXEC_BACKEND_H

#include <stddef.h>
#include <stdint.h>

int xb_init(char *device_name, size_t n, char *err, size_t errn);
/* Maps a shared buffer received from the judge; readonly: the exec may only read it. */
int xb_map(int fd, size_t bytes, int readonly, void **ptr, char *err, size_t errn);
void xb_unmap(void *ptr, size_t bytes);
/* The protocol words (GPU only): go is read-only here, done is written by the stream. */
int xb_map_word(int id, int fd, size_t bytes, char *err, size_t errn);
/* The device nodes of GPUs that are not this process's (NULL-terminated, maybe empty), for
 * the jail to hide: on the GPU, where CUDA_VISIBLE_DEVICES names its GPU (a class run's
 * worker), every /dev/nvidiaN but its own; the host backend's come from the test suite. */
const char *const *xb_foreign_devices(void);
/* Starts naming the kernels launched inside the solution's calls (GPU: CUPTI callbacks;
 * the host backend has no kernels). 0, or -1 with the reason: then nothing is reported. */
int xb_track_kernels(char *err, size_t errn);
/* 1 while every kernel launched inside a call so far has a name (tracking started, no
 * graph launched, not switched off by the solution as far as this process can tell). */
int xb_kernels_tracked(void);
/* The i-th distinct kernel launched inside a call (its mangled name), or NULL past the end. */
const char *xb_kernel_ran(int i);
/* 1 when a call waits for the go word on the device; 0 when it waits for LM_GO. */
int xb_gated(void);
void *xb_stream(void);
/* Right after the solution is loaded: GPU, makes the runtime load its modules now, while
 * nothing in the context waits (a module loaded behind a waiting stream never loads). */
int xb_loaded(char *err, size_t errn);
/* GPU: enqueues, for call k, a wait for go >= k, a spin over the whole GPU (so the start mark
 * fires once the solution's launches are queued, and nothing of the solution's runs beside
 * it) and the start mark. Host backend: nothing. */
int xb_arm(uint64_t k, char *err, size_t errn);
/* Calls fn(ctx) and marks its end; on the GPU, then enqueues done = k. */
int xb_call(uint64_t k, void (*fn)(void *), void *ctx, char *err, size_t errn);
/* Waits for the call; *ev_ms: its time by the exec's own events. 0, or CL_DS_* with err. */
int xb_finish(double *ev_ms, char *err, size_t errn);
/* Device scratch for cudalab_scratch (the exec's own memory). */
void *xb_scratch_alloc(size_t bytes);
void xb_scratch_free(void *p);
/* The trusted calibration call: copies bytes from src to dst on the stream. */
void xb_builtin_copy(void *dst, const void *src, size_t bytes);

#endif
