/* SPDX-License-Identifier: MIT */
/*
 * prof_vdi.c - VDI boot, login and Monday-login storms: desktops (one
 * stream each) arrive over a window, run a boot or login phase with its
 * own rate, read share and sizes (the phase is the desktop's one
 * transaction), then settle into steady-state office I/O.  Full clones
 * do all their I/O on their own disk; linked clones read mostly from a
 * shared replica and write to their own delta region.  A desktop's I/Os
 * are dependent in sequence (it issues the next after the previous one
 * completed, plus a think time), so that closed-loop replay on a faster
 * target finishes boots and logins sooner; arrivals stay open.
 */
#include "config.h"

#include <errno.h>
#include <math.h>

#include "synth/engine.h"

enum { P_DESKTOPS, P_WINDOW, P_CLONE, P_PHASE, P_PH_IOPS, P_PH_READ,
       P_PH_RSIZE, P_PH_WSIZE, P_PH_REPLICA, P_ST_IOPS, P_ST_READ, P_ST_RSIZE,
       P_ST_WSIZE, P_ST_REPLICA, P_IMAGE, P_DELTA, P_LATENCY };

#define VDI_PARAMS(name, desk, dsrc, win, wsrc, phase, psrc, iops, isrc,       \
		   rd, rsrc, rsz, szsrc, wsz, rep, repsrc)                     \
	static const struct syn_param name[] = {                               \
		{ "desktops", SYN_P_INT, desk, "", "desktops, one stream each", \
		  dsrc, NULL, 1, 1e6 },                                        \
		{ "window", SYN_P_TIME, win, "s",                              \
		  "desktops start uniformly over this window", wsrc, NULL, 0, 1e6 }, \
		{ "clone", SYN_P_ENUM, "linked", "",                           \
		  "full clones (own disk) or linked clones (replica + delta)", \
		  "WORKLOADS.md: full clone and linked clone traces",          \
		  "full|linked", 0, 0 },                                       \
		{ "phase", SYN_P_TIME, phase, "s", "length of the storm phase per desktop", \
		  psrc, NULL, 0, 1e5 },                                        \
		{ "phase-iops", SYN_P_NUM, iops, "IOPS", "per-desktop rate in the phase", \
		  isrc, NULL, 0, 1e6 },                                        \
		{ "phase-read", SYN_P_NUM, rd, "%", "read share in the phase", \
		  rsrc, NULL, 0, 100 },                                        \
		{ "phase-read-size", SYN_P_SIZE, rsz, "B", "mean read size in the phase", \
		  szsrc, NULL, 4096, 1048576 },                                \
		{ "phase-write-size", SYN_P_SIZE, wsz, "B", "mean write size in the phase", \
		  "WORKLOADS.md: 10 KB writes", NULL, 4096, 1048576 },         \
		{ "phase-replica", SYN_P_NUM, rep, "%",                        \
		  "linked clones: share of reads served by the replica", repsrc, \
		  NULL, 0, 100 },                                              \
		{ "steady-iops", SYN_P_NUM, "3.5", "IOPS", "per-desktop rate after the phase", \
		  "WORKLOADS.md: steady state 3-4 IOPS per desktop", NULL, 0, 1e6 }, \
		{ "steady-read", SYN_P_NUM, "25", "%", "read share in steady state", \
		  "WORKLOADS.md: steady state 25/75", NULL, 0, 100 },          \
		{ "steady-read-size", SYN_P_SIZE, "18k", "B", "mean steady read size", \
		  "WORKLOADS.md: 18 KB reads", NULL, 4096, 1048576 },          \
		{ "steady-write-size", SYN_P_SIZE, "10k", "B", "mean steady write size", \
		  "WORKLOADS.md: 10 KB writes", NULL, 4096, 1048576 },         \
		{ "steady-replica", SYN_P_NUM, "80", "%",                      \
		  "linked clones: replica share of steady reads", "assumption", \
		  NULL, 0, 100 },                                              \
		{ "image-size", SYN_P_SIZE, "24G", "B",                        \
		  "desktop image (replica, or each full clone's disk)",        \
		  "assumption: Windows 7/10 image", NULL, 16777216, 1e13 },    \
		{ "delta-size", SYN_P_SIZE, "2G", "B", "linked clones: delta region per desktop", \
		  "assumption", NULL, 16777216, 1e13 },                        \
		{ "latency", SYN_P_TIME, "500us", "s",                         \
		  "nominal latency between a desktop's dependent I/Os (think = 1/IOPS - latency)", \
		  "WORKLOADS.md: 564 us at the full-clone boot peak", NULL, 1e-6, 10 }, \
		{ NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, 0 },               \
	}

VDI_PARAMS(boot_params, "1270", "WORKLOADS.md: 1,270 desktops in 10-12 min",
	   "11m", "WORKLOADS.md: 1,270 desktops in 10-12 min",
	   "60s", "assumption: Windows boot ~1 min",
	   "90", "calibrated: 1,270 desktops / 11 min peak ~15,000 IOPS",
	   "84", "WORKLOADS.md: ~84% reads (Windows 7 boot)",
	   "32k", "assumption", "8k",
	   "95", "assumption: boot reads the image");
VDI_PARAMS(login_params, "1000", "assumption",
	   "30m", "assumption: a morning's arrivals",
	   "60s", "assumption: login + profile load ~1 min",
	   "10.5", "WORKLOADS.md: 8-13 IOPS per desktop in a login storm",
	   "50", "WORKLOADS.md: login storm 50/50",
	   "36k", "WORKLOADS.md: 36 KB reads", "10k",
	   "90", "WORKLOADS.md: ~90% of reads hit the replica");
VDI_PARAMS(monday_params, "1000", "assumption",
	   "10m", "WORKLOADS.md: a compressed Monday window (assumption: 1/3)",
	   "90s", "assumption: cold caches, profile loads",
	   "17", "WORKLOADS.md: heavy user 14-20 IOPS (cold caches)",
	   "60", "assumption: cold caches read more",
	   "36k", "WORKLOADS.md: 36 KB login reads", "10k",
	   "90", "WORKLOADS.md: ~90% of reads hit the replica");

struct vdi_priv {
	int linked;
	uint64_t image, delta, phase_ns, lat;
	double ph_gap, ph_read, ph_rsz, ph_wsz, ph_rep;
	double st_gap, st_read, st_rsz, st_wsz, st_rep;
};

/* Stream slots: u0 = phase end, u1 = desktop index, u2 = I/Os issued. */

static uint32_t draw_len(struct syn_rng *r, double mean)
{
	double x = syn_rng_exp(r, mean);
	uint64_t len = (uint64_t)(x / 4096 + 0.5) * 4096;

	if (len < 4096)
		len = 4096;
	if (len > 1048576)
		len = 1048576;
	return (uint32_t)len;
}

/* The time from one I/O of a desktop to its next, mean gap: the
 * nominal latency, then an exponential think time (gap - latency). */
static uint64_t think_gap(const struct vdi_priv *p, struct syn_rng *r,
			  double gap)
{
	double think = gap - (double)p->lat;

	return ist_add_sat(p->lat, think > 0 ? ist_ns_sat(syn_rng_exp(r, think)) : 0);
}

static int vdi_setup(struct syn_gen *g, void *priv)
{
	struct vdi_priv *p = priv;
	uint64_t n = syn_pu(g, P_DESKTOPS);
	double win = syn_p(g, P_WINDOW) * 1e9;
	double ph = syn_p(g, P_PH_IOPS), st = syn_p(g, P_ST_IOPS);
	int rc;

	p->linked = syn_p(g, P_CLONE) != 0;
	p->image = syn_pu(g, P_IMAGE) / 4096 * 4096;
	p->delta = syn_pu(g, P_DELTA) / 4096 * 4096;
	p->phase_ns = syn_pns(g, P_PHASE);
	p->ph_gap = ph > 0 ? 1e9 / ph : 0;
	p->st_gap = st > 0 ? 1e9 / st : 0;
	p->ph_read = syn_p(g, P_PH_READ) / 100;
	p->st_read = syn_p(g, P_ST_READ) / 100;
	p->ph_rsz = syn_p(g, P_PH_RSIZE);
	p->ph_wsz = syn_p(g, P_PH_WSIZE);
	p->st_rsz = syn_p(g, P_ST_RSIZE);
	p->st_wsz = syn_p(g, P_ST_WSIZE);
	p->ph_rep = syn_p(g, P_PH_REPLICA) / 100;
	p->st_rep = syn_p(g, P_ST_REPLICA) / 100;
	p->lat = syn_pns(g, P_LATENCY);
	g->nominal_lat_ns = p->lat;
	if (p->linked) {
		rc = syn_add_device(g, "replica", p->image, 512);
		if (rc >= 0)
			rc = syn_add_device(g, "delta", p->delta * n, 512);
	} else {
		rc = syn_add_device(g, "desktops", p->image * n, 512);
	}
	if (rc < 0)
		return rc;
	for (uint64_t i = 0; i < n; i++) {
		struct syn_stream *s = syn_add_stream(g, 0);

		if (!s)
			return -ENOMEM;
		s->t = (uint64_t)(syn_rng_unit(&s->rng) * win);
		s->u0 = s->t + p->phase_ns;
		s->u1 = i;
		s->txn = 1; /* the boot/login is the desktop's transaction */
		if (!p->phase_ns || !p->ph_gap)
			s->txn = 0;
	}
	return 0;
}

static int vdi_step(struct syn_gen *g, void *priv, struct syn_stream *s,
		    struct ist_record *rec)
{
	struct vdi_priv *p = priv;
	struct syn_rng *r = &s->rng;
	int in_phase = s->txn != 0;
	double gap = in_phase ? p->ph_gap : p->st_gap;
	int is_read = syn_rng_chance(r, in_phase ? p->ph_read : p->st_read);
	uint32_t len = draw_len(r, is_read ? (in_phase ? p->ph_rsz : p->st_rsz) :
				(in_phase ? p->ph_wsz : p->st_wsz));
	unsigned dev = 0, flags = 0;
	uint64_t base = 0, size = p->image, next;

	if (!gap) {
		if (in_phase) { /* no phase I/O: straight to steady state */
			s->txn = 0;
			s->t = s->u0;
			return 0;
		}
		return SYN_RETIRE;
	}
	if (p->linked) {
		if (!is_read || !syn_rng_chance(r, in_phase ? p->ph_rep : p->st_rep)) {
			dev = 1;
			base = s->u1 * p->delta;
			size = p->delta;
		}
	} else {
		base = s->u1 * p->image;
	}
	if (len > size)
		len = (uint32_t)size;
	next = ist_add_sat(s->t, think_gap(p, r, gap));
	if (in_phase && next >= s->u0)
		flags |= IST_F_COMMIT; /* the phase's last I/O ends it */
	if (s->u2++)
		flags |= IST_F_DEPENDENT;
	syn_rec(rec, s, dev, is_read ? IST_OP_READ : IST_OP_WRITE,
		base + syn_rng_below(r, (size - len) / 4096 + 1) * 4096, len, flags);
	if (flags & IST_F_COMMIT) {
		s->txn = 0;
		next = p->st_gap ? ist_add_sat(s->u0, think_gap(p, r, p->st_gap)) :
			UINT64_MAX;
		if (next < s->t + p->lat)
			next = s->t + p->lat;
	}
	s->t = next;
	return 1;
}

#define VDI_PROFILE(var, pname, summary_, params_)                             \
	const struct syn_profile var = {                                       \
		.name = pname,                                                 \
		.summary = summary_,                                           \
		.params = params_,                                             \
		.priv_size = sizeof(struct vdi_priv),                          \
		.setup = vdi_setup,                                            \
		.step = vdi_step,                                              \
	}

VDI_PROFILE(syn_prof_vdi_boot, "vdi-boot",
	    "VDI boot storm: desktops boot over a window (clone=full|linked)",
	    boot_params);
VDI_PROFILE(syn_prof_vdi_login, "vdi-login",
	    "VDI initial login storm: 50/50, 36 KB reads, 10 KB writes",
	    login_params);
VDI_PROFILE(syn_prof_vdi_monday, "vdi-login-monday",
	    "VDI Monday-morning login: cold caches, compressed window",
	    monday_params);
