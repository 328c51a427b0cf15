/* dashboard.js - the live cluster page slurmrestd serves at "/".
 *
 * It reads the same REST API as any client (v0.0.38), as the signed-in
 * user: the token comes from the address's fragment
 * (#user=NAME&token=JWT, never sent to a server) or from the form, and
 * goes in X-SLURM-USER-NAME / X-SLURM-USER-TOKEN. What it shows is what
 * that user may see (PrivateData applies in the controller).
 *
 * Everything a user wrote (job names, reasons) is put in the page with
 * textContent, never as HTML.
 *
 * window.dashboard holds the numbers each chart shows (tests read them).
 */
'use strict';

const API = '/slurm/v0.0.38';
const DBAPI = '/slurmdb/v0.0.38';
const NODE_KINDS = ['allocated', 'mixed', 'idle', 'drained', 'down'];
const NODE_COLORS = { allocated: '#d9534f', mixed: '#f0ad4e', idle: '#5cb85c',
	drained: '#6f42c1', down: '#343a40' };
const SUB_KINDS = ['batch', 'salloc', 'srun', 'array'];
const SUB_LABELS = { batch: 'batch (sbatch)', salloc: 'interactive (salloc)',
	srun: 'direct srun', array: 'array tasks' };
const SUB_COLORS = { batch: '#0d6efd', salloc: '#20c997', srun: '#fd7e14', array: '#6f42c1' };
const WINDOW_S = 3600;
const BIN_S = 120;

const params = new URLSearchParams(location.search);
const REFRESH_MS = Math.max(1000, 1000 * (parseFloat(params.get('refresh')) || 5));

const dashboard = {
	auth: null,          /* {user, token} or null */
	charts: {},
	gpuCharts: {},
	seen: new Map(),     /* job id -> {submit, kind}: jobs seen in the queue */
	nodes: {},           /* partition -> {allocated: n, ...} */
	gpus: {},            /* partition -> {allocated, idle, total} */
	submissions: {},     /* kind -> count in the window */
	efficiency: [],      /* finished jobs: {job_id, req_mb, used_mb, cpu_eff, ...} */
	refreshes: 0,
	errors: 0,
};
window.dashboard = dashboard;

/* Without Chart.js (slurmrestd found no libjs-chart.js) the numbers and
 * tables still work: charts become objects that draw nothing. */
if (typeof Chart === 'undefined') {
	dashboard.noCharts = true;
	window.Chart = class {
		constructor(el, cfg) { this.data = cfg.data; }
		update() {}
	};
}

/* ---- auth ---- */

function authFromFragment() {
	const f = new URLSearchParams(location.hash.replace(/^#/, ''));
	if (f.get('user') && f.get('token'))
		return { user: f.get('user'), token: f.get('token') };
	return null;
}

function showLogin(why) {
	const form = document.getElementById('login');
	form.hidden = false;
	setStatus(why, true);
}

function setupLogin() {
	const form = document.getElementById('login');
	form.addEventListener('submit', ev => {
		ev.preventDefault();
		dashboard.auth = {
			user: document.getElementById('login-user').value.trim(),
			token: document.getElementById('login-token').value.trim()
				.replace(/^SLURM_JWT=/, ''),
		};
		form.hidden = true;
		refresh();
	});
}

async function api(path) {
	const headers = { Accept: 'application/json' };
	if (dashboard.auth) {
		headers['X-SLURM-USER-NAME'] = dashboard.auth.user;
		headers['X-SLURM-USER-TOKEN'] = dashboard.auth.token;
	}
	const r = await fetch(path, { headers, cache: 'no-store' });
	if (r.status === 401 || r.status === 403) {
		const e = new Error('not signed in (HTTP ' + r.status + ')');
		e.auth = true;
		throw e;
	}
	if (!r.ok)
		throw new Error(path + ': HTTP ' + r.status);
	return r.json();
}

function setStatus(text, isError) {
	const s = document.getElementById('status');
	s.textContent = text;
	s.classList.toggle('error', !!isError);
}

/* ---- nodes and GPUs ---- */

function nodeKind(n) {
	const flags = (n.state_flags || []).map(f => String(f).toUpperCase());
	const st = String(n.state || '').toLowerCase();
	if (flags.includes('DRAIN') || st.startsWith('drain'))
		return 'drained';
	if (st.startsWith('down') || flags.includes('NOT_RESPONDING'))
		return 'down';
	if (st.startsWith('alloc') || st.startsWith('completing'))
		return 'allocated';
	if (st.startsWith('mix'))
		return 'mixed';
	if (st.startsWith('idle'))
		return 'idle';
	return 'down';
}

/* "gpu:4", "gpu:a100:4(S:0-1)", "gpu:2(IDX:0-1)": the count of GPUs. */
function gpuCount(gres) {
	let total = 0;
	for (const item of String(gres || '').split(/,(?![^(]*\))/)) {
		const m = /^gpu(?::[^:(]+)?:(\d+)/.exec(item.trim());
		if (m)
			total += parseInt(m[1], 10);
	}
	return total;
}

function countNodes(nodes) {
	const byPart = {};
	const gpus = {};
	for (const n of nodes) {
		const kind = nodeKind(n);
		const total = gpuCount(n.gres);
		const used = Math.min(total, gpuCount(n.gres_used));
		for (const p of n.partitions || []) {
			byPart[p] = byPart[p] || Object.fromEntries(NODE_KINDS.map(k => [k, 0]));
			byPart[p][kind]++;
			if (total > 0) {
				gpus[p] = gpus[p] || { allocated: 0, idle: 0, total: 0 };
				gpus[p].allocated += used;
				gpus[p].total += total;
				gpus[p].idle = gpus[p].total - gpus[p].allocated;
			}
		}
	}
	return { byPart, gpus };
}

function drawNodes() {
	const parts = Object.keys(dashboard.nodes).sort();
	const datasets = NODE_KINDS.map(k => ({
		label: k, backgroundColor: NODE_COLORS[k],
		data: parts.map(p => dashboard.nodes[p][k]),
	}));
	const c = dashboard.charts.nodes;
	if (!c) {
		dashboard.charts.nodes = new Chart(document.getElementById('chart-nodes'), {
			type: 'bar',
			data: { labels: parts, datasets },
			options: { animation: false, responsive: true,
				scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true,
					ticks: { precision: 0 }, title: { display: true, text: 'nodes' } } } },
		});
	} else {
		c.data.labels = parts;
		c.data.datasets.forEach((d, i) => { d.data = datasets[i].data; });
		c.update();
	}
	document.getElementById('nodes-summary').textContent = parts.map(p =>
		p + ': ' + NODE_KINDS.filter(k => dashboard.nodes[p][k])
			.map(k => dashboard.nodes[p][k] + ' ' + k).join(', ')).join('; ');
}

function drawGpus() {
	const box = document.getElementById('gpu-charts');
	const parts = Object.keys(dashboard.gpus).sort();
	document.getElementById('gpu-none').hidden = parts.length > 0;
	for (const p of parts) {
		const g = dashboard.gpus[p];
		let entry = dashboard.gpuCharts[p];
		if (!entry) {
			const div = document.createElement('div');
			div.className = 'donut';
			div.dataset.partition = p;
			const canvas = document.createElement('canvas');
			const label = document.createElement('p');
			div.append(canvas, label);
			box.append(div);
			const chart = new Chart(canvas, {
				type: 'doughnut',
				data: { labels: ['allocated', 'idle'], datasets: [{
					data: [g.allocated, g.idle],
					backgroundColor: ['#d9534f', '#5cb85c'] }] },
				options: { animation: false, plugins: { legend: { display: false },
					title: { display: true, text: p } } },
			});
			entry = dashboard.gpuCharts[p] = { chart, label };
		} else {
			entry.chart.data.datasets[0].data = [g.allocated, g.idle];
			entry.chart.update();
		}
		entry.label.textContent = g.allocated + ' of ' + g.total + ' GPUs allocated';
	}
}

/* ---- submissions ---- */

function queueKind(j) {
	if (j.array_job_id)
		return 'array';
	if (j.batch_flag)
		return 'batch';
	return j.name === 'interactive' ? 'salloc' : 'srun';
}

function dbKind(j) {
	if (j.array && j.array.job_id)
		return 'array';
	const steps = (j.steps || []).map(s => s.step && s.step.name);
	if (steps.includes('batch'))
		return 'batch';
	if (j.name === 'interactive' || steps.includes('interactive'))
		return 'salloc';
	return 'srun';
}

function countSubmissions(now) {
	const first = now - WINDOW_S;
	const bins = Math.ceil(WINDOW_S / BIN_S);
	const series = Object.fromEntries(SUB_KINDS.map(k => [k, new Array(bins).fill(0)]));
	const totals = Object.fromEntries(SUB_KINDS.map(k => [k, 0]));
	for (const s of dashboard.seen.values()) {
		if (s.submit < first || s.submit > now + 60)
			continue;
		const b = Math.min(bins - 1, Math.floor((s.submit - first) / BIN_S));
		series[s.kind][b]++;
		totals[s.kind]++;
	}
	const labels = [];
	for (let b = 0; b < bins; b++) {
		const t = new Date((first + b * BIN_S) * 1000);
		labels.push(t.toTimeString().slice(0, 5));
	}
	return { series, totals, labels };
}

function drawSubmissions(now) {
	const { series, totals, labels } = countSubmissions(now);
	dashboard.submissions = totals;
	const c = dashboard.charts.subs;
	if (!c) {
		dashboard.charts.subs = new Chart(document.getElementById('chart-subs'), {
			type: 'bar',
			data: { labels, datasets: SUB_KINDS.map(k => ({ label: SUB_LABELS[k],
				backgroundColor: SUB_COLORS[k], data: series[k] })) },
			options: { animation: false, scales: { x: { stacked: true },
				y: { stacked: true, beginAtZero: true, ticks: { precision: 0 },
					title: { display: true, text: 'jobs submitted' } } } },
		});
	} else {
		c.data.labels = labels;
		c.data.datasets.forEach((d, i) => { d.data = series[SUB_KINDS[i]]; });
		c.update();
	}
	document.getElementById('subs-summary').textContent = 'Last hour: ' +
		SUB_KINDS.map(k => totals[k] + ' ' + SUB_LABELS[k]).join(', ');
}

/* ---- efficiency ---- */

function tresCount(list, type) {
	const t = (list || []).find(x => x.type === type);
	return t ? Number(t.count) || 0 : 0;
}

function efficiencyOf(j) {
	const state = j.state ? j.state.current : '';
	const elapsed = j.time ? Number(j.time.elapsed) || 0 : 0;
	if (!state || state === 'PENDING' || state === 'RUNNING' || elapsed <= 0)
		return null;
	const alloc = j.tres ? j.tres.allocated : [];
	const cpus = tresCount(alloc, 'cpu') || (j.required && j.required.CPUs) || 1;
	const reqMb = tresCount(alloc, 'mem') || (j.required && j.required.memory) || 0;
	let usedBytes = 0;
	for (const s of j.steps || [])
		usedBytes = Math.max(usedBytes,
			tresCount(s.tres && s.tres.requested && s.tres.requested.max, 'mem'));
	const usedMb = usedBytes / 1048576;
	const tot = (j.time && j.time.total) || {};
	const cpuSecs = (Number(tot.seconds) || 0) + (Number(tot.microseconds) || 0) / 1e6;
	const coreWall = elapsed * cpus;
	const idleCoreH = Math.max(0, coreWall - cpuSecs) / 3600;
	const unusedGbH = Math.max(0, reqMb - usedMb) / 1024 * elapsed / 3600;
	const id = j.array && j.array.job_id && j.array.task_id != null
		? j.array.job_id + '_' + j.array.task_id : String(j.job_id);
	return { job_id: j.job_id, id, name: j.name || '', user: j.user || '', state, elapsed,
		cpus, req_mb: reqMb, used_mb: usedMb,
		cpu_eff: coreWall > 0 ? Math.min(100, 100 * cpuSecs / coreWall) : 0,
		mem_eff: reqMb > 0 ? 100 * usedMb / reqMb : 0,
		idle_core_h: idleCoreH, unused_gb_h: unusedGbH, waste: idleCoreH + unusedGbH };
}

/* Shades the over-allocated corner: used < half of requested. */
const overAllocated = {
	id: 'overAllocated',
	beforeDatasetsDraw(chart) {
		const { ctx, chartArea: a, scales: { x, y } } = chart;
		const xmax = x.max;
		ctx.save();
		ctx.beginPath();
		ctx.rect(a.left, a.top, a.right - a.left, a.bottom - a.top);
		ctx.clip();
		ctx.fillStyle = 'rgba(217, 83, 79, 0.12)';
		ctx.beginPath();
		ctx.moveTo(x.getPixelForValue(0), y.getPixelForValue(0));
		ctx.lineTo(x.getPixelForValue(xmax), y.getPixelForValue(0));
		ctx.lineTo(x.getPixelForValue(xmax), y.getPixelForValue(xmax / 2));
		ctx.closePath();
		ctx.fill();
		ctx.fillStyle = 'rgba(217, 83, 79, 0.8)';
		ctx.fillText('over-allocated', x.getPixelForValue(xmax) - 80, y.getPixelForValue(0) - 6);
		ctx.restore();
	},
};

function effColor(p) {
	const r = Math.round(220 - 1.6 * p), g = Math.round(60 + 1.4 * p);
	return 'rgb(' + r + ',' + g + ',70)';
}

function drawEfficiency() {
	const pts = dashboard.efficiency.map(e => ({ x: e.req_mb, y: Math.round(e.used_mb * 10) / 10,
		e }));
	const colors = pts.map(p => effColor(p.e.cpu_eff));
	const c = dashboard.charts.eff;
	if (!c) {
		dashboard.charts.eff = new Chart(document.getElementById('chart-eff'), {
			type: 'scatter',
			data: { datasets: [{ label: 'finished jobs', data: pts,
				pointBackgroundColor: colors, pointRadius: 5 }] },
			plugins: [overAllocated],
			options: { animation: false,
				scales: { x: { beginAtZero: true, title: { display: true,
					text: 'requested memory (MB)' } },
				y: { beginAtZero: true, title: { display: true, text: 'used memory (MB)' } } },
				plugins: { legend: { display: false }, tooltip: { callbacks: {
					label: ctx => { const e = ctx.raw.e; return 'job ' + e.id + ' ' + e.name +
						': ' + e.used_mb.toFixed(1) + ' of ' + e.req_mb + ' MB, CPU ' +
						e.cpu_eff.toFixed(1) + '%'; } } } },
				onClick: (ev, els) => { if (els.length) showJob(pts[els[0].index].e.job_id); },
			},
		});
	} else {
		c.data.datasets[0].data = pts;
		c.data.datasets[0].pointBackgroundColor = colors;
		c.update();
	}
}

function memShort(mb) {
	let kb = mb * 1024;
	const units = 'KMGTPE';
	if (!kb)
		return '0';
	let e = 0;
	while (kb >= 1024 && e < 5) {
		kb /= 1024;
		e++;
	}
	return (kb >= 99.995 ? kb.toFixed(0) : kb >= 9.995 ? kb.toFixed(1) : kb.toFixed(2)) + units[e];
}

function duration(s) {
	const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24;
	const m = Math.floor(s / 60) % 60, sec = s % 60;
	const hms = [h, m, sec].map(v => String(v).padStart(2, '0')).join(':');
	return d ? d + '-' + hms : hms;
}

function fillTable(id, rows, cells, onClick) {
	const body = document.querySelector('#' + id + ' tbody');
	body.replaceChildren();
	for (const r of rows) {
		const tr = document.createElement('tr');
		for (const v of cells(r)) {
			const td = document.createElement('td');
			td.textContent = v;
			tr.append(td);
		}
		tr.addEventListener('click', () => onClick(r));
		body.append(tr);
	}
}

function drawWorst() {
	const rows = dashboard.efficiency.slice().sort((a, b) => b.waste - a.waste || a.job_id - b.job_id)
		.slice(0, 15);
	fillTable('worst', rows, e => [e.id, e.name, e.user, e.state, duration(e.elapsed), e.cpus,
		e.cpu_eff.toFixed(1) + '%', memShort(e.req_mb), memShort(e.used_mb),
		e.req_mb ? e.mem_eff.toFixed(1) + '%' : '-', e.idle_core_h.toFixed(2),
		e.unused_gb_h.toFixed(2)], e => showJob(e.job_id));
}

/* What squeue lists by default: not the finished jobs the controller still
 * keeps (MinJobAge); those are in the efficiency views. */
const FINISHED = new Set(['COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT', 'OUT_OF_MEMORY',
	'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE']);

function drawQueue(jobs) {
	const rows = jobs.filter(j => !FINISHED.has(j.job_state))
		.sort((a, b) => a.job_id - b.job_id).slice(0, 200);
	fillTable('queue', rows, j => [
		j.array_job_id && j.array_task_id != null ? j.array_job_id + '_' + j.array_task_id
			: String(j.job_id),
		j.partition || '', j.name || '', j.user_name || '', j.job_state || '',
		String(j.node_count || ''),
		j.job_state === 'PENDING' ? '(' + (j.state_reason || 'None') + ')' : (j.nodes || '')],
	j => showJob(j.job_id));
}

/* ---- one job, as scontrol show job ---- */

function fmtTime(t) {
	if (!t)
		return 'Unknown';
	const d = new Date(t * 1000);
	const p = v => String(v).padStart(2, '0');
	return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' +
		p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
}

function scontrolLines(j) {
	const lim = j.time_limit == null ? 'UNLIMITED' : duration(j.time_limit * 60);
	const ec = (j.exit_code || 0) >> 8, sig = (j.exit_code || 0) & 0x7f;
	return [
		['JobId', j.job_id], ['JobName', j.name],
		['UserId', (j.user_name || '') + '(' + j.user_id + ')'],
		['GroupId', (j.group_name || '') + '(' + j.group_id + ')'],
		['Priority', j.priority], ['Account', j.account], ['QOS', j.qos],
		['JobState', j.job_state], ['Reason', j.state_reason],
		['Dependency', j.dependency || '(null)'], ['Requeue', j.requeue ? 1 : 0],
		['Restarts', j.restart_cnt], ['BatchFlag', j.batch_flag ? 1 : 0],
		['ExitCode', ec + ':' + sig], ['TimeLimit', lim],
		['SubmitTime', fmtTime(j.submit_time)], ['EligibleTime', fmtTime(j.eligible_time)],
		['StartTime', fmtTime(j.start_time)], ['EndTime', fmtTime(j.end_time)],
		['Partition', j.partition], ['NodeList', j.nodes || '(null)'],
		['BatchHost', j.batch_host || '(null)'], ['NumNodes', j.node_count],
		['NumCPUs', j.cpus], ['NumTasks', j.tasks], ['TRES', j.tres_alloc_str || j.tres_req_str],
		['Command', j.command], ['WorkDir', j.current_working_directory],
		['StdErr', j.standard_error], ['StdIn', j.standard_input],
		['StdOut', j.standard_output],
	];
}

async function showJob(id) {
	const dlg = document.getElementById('job-dialog');
	const pre = document.getElementById('job-fields');
	document.getElementById('job-title').textContent = 'Job ' + id;
	pre.textContent = 'loading';
	if (!dlg.open)
		dlg.showModal();
	try {
		const doc = await api(API + '/job/' + encodeURIComponent(id));
		const j = (doc.jobs || [])[0];
		if (!j) {
			pre.textContent = 'Job ' + id + ' is no longer in the queue (MinJobAge); see sacct.';
			return;
		}
		pre.textContent = scontrolLines(j).map(([k, v]) => k + '=' + (v == null ? '' : v))
			.join('\n');
	} catch (e) {
		pre.textContent = String(e.message || e);
	}
}

/* ---- the loop ---- */

async function refresh() {
	const now = Math.floor(Date.now() / 1000);
	try {
		const [nodes, jobs, hist] = await Promise.all([
			api(API + '/nodes'), api(API + '/jobs'),
			api(DBAPI + '/jobs?start_time=' + (now - 86400)),
		]);
		const counted = countNodes(nodes.nodes || []);
		dashboard.nodes = counted.byPart;
		dashboard.gpus = counted.gpus;
		for (const j of jobs.jobs || [])
			if (!dashboard.seen.has(j.job_id))
				dashboard.seen.set(j.job_id, { submit: j.submit_time, kind: queueKind(j) });
		for (const j of hist.jobs || [])
			if (!dashboard.seen.has(j.job_id) && j.time)
				dashboard.seen.set(j.job_id, { submit: j.time.submission, kind: dbKind(j) });
		dashboard.efficiency = (hist.jobs || []).map(efficiencyOf).filter(Boolean);
		drawNodes();
		drawGpus();
		drawSubmissions(now);
		drawEfficiency();
		drawWorst();
		drawQueue(jobs.jobs || []);
		dashboard.refreshes++;
		const who = dashboard.auth ? dashboard.auth.user : 'local';
		document.getElementById('who').textContent = 'signed in as ' + who;
		setStatus('updated ' + new Date().toLocaleTimeString() + (dashboard.noCharts
			? ' (no charts: slurmrestd has no Chart.js; install libjs-chart.js)' : ''));
	} catch (e) {
		dashboard.errors++;
		if (e.auth)
			showLogin('Sign in with a token to see the cluster.');
		else
			setStatus(String(e.message || e), true);
	}
}

async function start() {
	dashboard.auth = authFromFragment();
	if (dashboard.auth)
		history.replaceState(null, '', location.pathname + location.search);
	setupLogin();
	try {
		const ping = await api(API + '/ping');
		const m = ping.meta && ping.meta.Slurm;
		document.getElementById('cluster').textContent = m ? 'Slurm ' + m.release : '';
	} catch (e) {
		/* refresh() says what went wrong */
	}
	await refresh();
	setInterval(() => { if (document.getElementById('login').hidden) refresh(); }, REFRESH_MS);
}

start();
