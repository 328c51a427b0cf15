/* pmi_forge.c - a test client that plays srun for a --mpi=pmi2 step and
 * feeds its slurmstepd PMI keys (IO_PMI_KVS, io_proto.h), as the user who
 * runs it (tests/integration/test_security_pmi.py).
 *
 *   pmi_forge -j JOB -w NODE -m MODE [-t MIB] [-g GATE] -- CMD...
 *
 * Creates a one-task step of JOB on NODE (REQUEST_JOB_STEP_CREATE, as
 * srun), launches CMD there with SLURM_MPI_TYPE=pmi2 (as srun --mpi=pmi2),
 * accepts the stepd's I/O connection, waits for the file GATE to exist
 * when given (the test watches the stepd from then on), then, by MODE:
 *   nofence  sends rounds of 60 MiB of new keys (64 KiB IO_PMI_KVS chunks,
 *            the round's last with ltid 0) without waiting for any fence;
 *   fence    answers each fence of the step (IO_PMI_FENCE with ltid 0)
 *            with a round of 16 MiB of new keys (CMD fences in a loop);
 * until MIB MiB (256) are sent or the stepd closes the connection. Prints
 * each IO_MESSAGE of the stepd ("message: <line>"), then "sent <MiB> MiB"
 * and "closed=<0|1>" once the stepd closed the connection (1) or nothing
 * was sent for 20 s (0). The step is cancelled at the end.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/conf.h"
#include "common/io_proto.h"
#include "common/msg.h"
#include "common/rpc_client.h"
#include "common/sl_errno.h"
#include "forge.h"

#define CHUNK	(60u << 10)
#define VAL_LEN 1000

struct forge {
	const struct sl_conf *conf;
	struct step_create_resp *step;
	struct launch_tasks_msg msg;
	uint32_t gtid;
	int lfd, fd;
	uint16_t io_port;
	bool is_fence_mode;
	size_t round_size, limit, sent, round_left;
	unsigned rounds_due, round, key;
	uint8_t out[IO_HDR_LEN + CHUNK + 2048];
	size_t out_len, out_off;
	uint8_t in[IO_HDR_LEN + IO_PAYLOAD_MAX];
	size_t in_len;
};

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void launch(struct forge *f, char **argv, int argc, char **env, uint32_t env_count)
{
	int rc;

	forge_fill_launch(&f->msg, f->step, &f->gtid, argv, argc, env, env_count, f->io_port);
	f->msg.cwd = "/tmp";
	rc = forge_send_launch(f->conf, f->msg.node_name, &f->msg);
	if (rc < 0)
		forge_die("launch", rc);
}

/* The next IO_PMI_KVS chunk of the current round into f->out. */
static void next_chunk(struct forge *f)
{
	uint8_t *p = f->out + IO_HDR_LEN;
	size_t len = 0;
	struct io_hdr h = {.type = IO_PMI_KVS};

	if (!f->round_left) {
		f->round_left = f->round_size;
		f->round++;
	}
	while (len + 8 + 32 + VAL_LEN <= CHUNK && len < f->round_left) {
		char key[32];
		uint32_t kl =
		    (uint32_t)snprintf(key, sizeof(key), "forged_%u_%u", f->round, f->key++);
		uint32_t be = htonl(kl);

		memcpy(p + len, &be, 4);
		memcpy(p + len + 4, key, kl);
		be = htonl(VAL_LEN);
		memcpy(p + len + 4 + kl, &be, 4);
		memset(p + len + 8 + kl, 'v', VAL_LEN);
		len += 8 + kl + VAL_LEN;
	}
	f->round_left = len >= f->round_left ? 0 : f->round_left - len;
	h.ltid = f->round_left ? 1 : 0;
	h.len = (uint32_t)len;
	io_hdr_pack(&h, f->out);
	f->out_len = IO_HDR_LEN + len;
	f->out_off = 0;
	if (!f->round_left && f->is_fence_mode)
		f->rounds_due--;
}

/* Frames from the stepd: its messages printed, fences counted. */
static void frames_in(struct forge *f)
{
	size_t used = 0;
	struct io_hdr h;

	while (f->in_len - used >= IO_HDR_LEN) {
		if (io_hdr_unpack(f->in + used, &h) < 0)
			forge_die("bad frame from the stepd", -EPROTO);
		if (f->in_len - used < IO_HDR_LEN + h.len)
			break;
		if (h.type == IO_MESSAGE)
			printf("message: %.*s\n", (int)h.len,
			       (const char *)f->in + used + IO_HDR_LEN);
		else if (h.type == IO_PMI_FENCE && h.ltid == 0)
			f->rounds_due++;
		used += IO_HDR_LEN + h.len;
	}
	memmove(f->in, f->in + used, f->in_len - used);
	f->in_len -= used;
	fflush(stdout);
}

static bool wants_to_send(const struct forge *f)
{
	if (f->out_off < f->out_len)
		return true;
	if (f->sent >= f->limit && !f->round_left)
		return false;
	return f->is_fence_mode ? f->rounds_due > 0 || f->round_left : true;
}

/* Send and read until the stepd closes or 20 s after the last send. */
static int serve(struct forge *f)
{
	int64_t quiet_since = now_ms();

	while (now_ms() - quiet_since < 20000) {
		bool is_sending = wants_to_send(f);
		struct pollfd p = {.fd = f->fd, .events = POLLIN | (is_sending ? POLLOUT : 0)};
		ssize_t n;

		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			return -errno;
		if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
			n = read(f->fd, f->in + f->in_len, sizeof(f->in) - f->in_len);
			if (n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EINTR)))
				return 1;
			if (n > 0) {
				f->in_len += (size_t)n;
				frames_in(f);
			}
		}
		if (!(p.revents & POLLOUT) || !is_sending)
			continue;
		if (f->out_off == f->out_len)
			next_chunk(f);
		n = write(f->fd, f->out + f->out_off, f->out_len - f->out_off);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return 1; /* EPIPE, ECONNRESET: the stepd closed it */
		f->out_off += (size_t)n;
		f->sent += (size_t)n;
		quiet_since = now_ms();
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = NULL, *node = NULL, *gate = NULL;
	char *env[] = {"PATH=/usr/bin:/bin", "SLURM_MPI_TYPE=pmi2", NULL};
	struct sl_conf *conf = NULL;
	struct forge *f = calloc(1, sizeof(*f));
	struct step_signal_msg cancel;
	struct pollfd p;
	uint32_t job_id = 0;
	int opt, closed;

	if (!f)
		return 1;
	f->limit = 256u << 20;
	cli_init(argv[0]);
	forge_tool = "pmi_forge";
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt(argc, argv, "j:w:m:t:g:")) != -1) {
		if (opt == 'j')
			job_id = (uint32_t)strtoul(optarg, NULL, 10);
		else if (opt == 'w')
			node = optarg;
		else if (opt == 'm')
			mode = optarg;
		else if (opt == 't')
			f->limit = (size_t)strtoul(optarg, NULL, 10) << 20;
		else if (opt == 'g')
			gate = optarg;
		else
			return 2;
	}
	if (!job_id || !node || !mode || optind >= argc
	    || (strcmp(mode, "nofence") && strcmp(mode, "fence")))
		return 2;
	f->is_fence_mode = !strcmp(mode, "fence");
	f->round_size = f->is_fence_mode ? 16u << 20 : 60u << 20;
	if (cli_conf_load_nodes(&conf) < 0)
		return 1;
	f->conf = conf;
	if (forge_io_listen(&f->lfd, &f->io_port) < 0)
		forge_die("listen", -errno);
	f->step = forge_step_create(f->conf, job_id, node);
	printf("step %u.%u\n", f->step->job_id, f->step->step_id);
	fflush(stdout);
	launch(f, argv + optind, argc - optind, env, 2);
	p = (struct pollfd){.fd = f->lfd, .events = POLLIN};
	if (poll(&p, 1, 30000) != 1 || (f->fd = accept(f->lfd, NULL, NULL)) < 0)
		forge_die("the stepd's I/O connection", -ETIMEDOUT);
	fcntl(f->fd, F_SETFL, O_NONBLOCK);
	forge_wait_gate(gate);
	closed = serve(f);
	if (closed < 0)
		forge_die("poll", closed);
	printf("sent %zu MiB\nclosed=%d\n", f->sent >> 20, closed);
	cancel =
	    (struct step_signal_msg){.job_id = job_id, .step_id = f->step->step_id, .signal = 9};
	rpc_call_ctld_rc(conf, REQUEST_CANCEL_JOB_STEP, &cancel);
	msg_free(msg_lookup(RESPONSE_JOB_STEP_CREATE), f->step);
	conf_free(conf);
	close(f->fd);
	close(f->lfd);
	free(f);
	return 0;
}
