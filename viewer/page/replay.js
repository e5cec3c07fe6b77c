// Crowd replay: --trace on a timeline (play, pause, scrub, speed), agents coloured by state,
// trails, follow an agent, its record for a tick on click, per-tick totals.
'use strict';

const STATES = ['walking', 'slid', 'blocked', 'stepped', 'snapped', 'falling', 'held'];
const STATE_COLOURS = [0x44cc66, 0x3399ff, 0xff4444, 0xffcc33, 0xcc66ff, 0xffffff, 0xff8800];

const Replay = {
  group: null, tick: 0, playing: false, speed: 1, follow: -1, data: null,

  async init() {
    this.group = new THREE.Group();
    Scene.scene.add(this.group);
    if (!Scene.info.trace) return;
    this.data = decodeReplay(await (await fetch('/api/trace')).arrayBuffer());
    const n = this.data.agents;
    // Agents as points (any crowd size stays one draw call), trails as line segments.
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * n), 3));
    g.setAttribute('color', new THREE.BufferAttribute(new Float32Array(3 * n), 3));
    const radius = this.data.sizes[0] || 0.4;
    this.points = new THREE.Points(g, new THREE.PointsMaterial({ size: 2 * radius, vertexColors: true }));
    this.group.add(this.points);
    this.trailLength = 30;
    const tg = new THREE.BufferGeometry();
    tg.setAttribute('position', new THREE.BufferAttribute(new Float32Array(6 * n * this.trailLength), 3));
    this.trails = new THREE.LineSegments(tg, new THREE.LineBasicMaterial({ color: 0x99aacc, transparent: true, opacity: 0.5 }));
    this.group.add(this.trails);
    this.setTick(0);
  },

  position(tick, agent) {  // where the agent stands after `tick` (-1: before the first)
    const d = this.data;
    const src = tick < 0 ? d.start : d.ends;
    const k = tick < 0 ? agent : tick * d.agents + agent;
    return [src[3 * k], src[3 * k + 1], src[3 * k + 2]];
  },

  setTick(t) {
    const d = this.data;
    if (!d) return;
    this.tick = Math.max(0, Math.min(d.ticks - 1, Math.floor(t)));
    const pos = this.points.geometry.attributes.position.array, col = this.points.geometry.attributes.color.array;
    const totals = new Array(STATES.length).fill(0);
    const c = new THREE.Color();
    for (let a = 0; a < d.agents; ++a) {
      const p = this.position(this.tick, a);
      pos.set(p, 3 * a);
      const s = d.states[this.tick * d.agents + a];
      totals[s]++;
      c.setHex(STATE_COLOURS[s]);
      col[3 * a] = c.r; col[3 * a + 1] = c.g; col[3 * a + 2] = c.b;
    }
    this.points.geometry.attributes.position.needsUpdate = true;
    this.points.geometry.attributes.color.needsUpdate = true;
    const trail = this.trails.geometry.attributes.position.array;
    trail.fill(0);
    let at = 0;
    for (let a = 0; a < d.agents; ++a) {
      for (let k = Math.max(0, this.tick - this.trailLength + 1); k <= this.tick; ++k) {
        trail.set(this.position(k - 1, a), at); trail.set(this.position(k, a), at + 3); at += 6;
      }
    }
    this.trails.geometry.attributes.position.needsUpdate = true;
    this.trails.geometry.setDrawRange(0, at / 3);
    if (this.follow >= 0 && this.follow < d.agents) {
      const p = this.position(this.tick, this.follow);
      const target = new THREE.Vector3(p[0], p[1], p[2]);
      Scene.camera.position.add(target.clone().sub(Scene.controls.target));
      Scene.controls.target.copy(target);
    }
    const el = document.getElementById('replay-tick');
    if (el) {
      el.textContent = `tick ${this.tick + 1} / ${d.ticks}`;
      document.getElementById('replay-scrub').value = this.tick;
      document.getElementById('replay-totals').innerHTML = STATES.map((s, i) =>
        `<tr><td><span style="color:#${STATE_COLOURS[i].toString(16).padStart(6, '0')}">■</span> ${s}</td><td>${totals[i]}</td></tr>`).join('');
    }
    Viewer.state.replayTick = this.tick;
    Viewer.state.replayTicks = d.ticks;
    Viewer.state.replayAgents = d.agents;
    Viewer.publish();
  },

  panel(el) {
    if (!this.data) {
      el.innerHTML = '<h3>Crowd replay</h3><p>Start with --trace T.cwsq (capsweep crowd --trace).</p>';
      return;
    }
    el.innerHTML = `<h3>Crowd replay</h3>
      <p>${this.data.agents} agents, ${this.data.ticks} ticks</p>
      <button id="replay-play">play / pause</button>
      <label>speed <select id="replay-speed"><option>0.25</option><option>0.5</option><option selected>1</option><option>2</option><option>4</option><option>10</option></select> ticks/frame</label>
      <input id="replay-scrub" type="range" min="0" max="${this.data.ticks - 1}" value="${this.tick}" style="width:100%">
      <div id="replay-tick"></div>
      <label>follow agent <input id="replay-follow" type="number" min="-1" value="${this.follow}"></label>
      <label>record of agent <input id="replay-agent" type="number" min="0" value="0"> <button id="replay-record-go">at this tick</button></label>
      <table id="replay-totals"></table>
      <pre id="replay-record"></pre>`;
    el.querySelector('#replay-play').addEventListener('click', () => { this.playing = !this.playing; });
    el.querySelector('#replay-speed').addEventListener('change', e => { this.speed = Number(e.target.value); });
    el.querySelector('#replay-scrub').addEventListener('input', e => this.setTick(Number(e.target.value)));
    el.querySelector('#replay-follow').addEventListener('change', e => { this.follow = Number(e.target.value); this.setTick(this.tick); });
    el.querySelector('#replay-record-go').addEventListener('click', () => this.record(Number(el.querySelector('#replay-agent').value)));
    this.setTick(this.tick);
  },

  async record(agent) {
    const reply = await fetch(`/api/trace/agent?tick=${this.tick}&agent=${agent}`);
    document.getElementById('replay-record').textContent = reply.ok ? JSON.stringify(await reply.json(), null, 1) : await reply.text();
  },

  // A click picks the nearest agent to the ray.
  pick(event) {
    if (!this.data) return;
    const rect = Scene.renderer.domElement.getBoundingClientRect();
    const mouse = new THREE.Vector2(((event.clientX - rect.left) / rect.width) * 2 - 1, -((event.clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.params.Points.threshold = (this.data.sizes[0] || 0.4) * 2;
    ray.setFromCamera(mouse, Scene.camera);
    const found = ray.intersectObject(this.points)[0];
    if (!found) return;
    document.getElementById('replay-agent').value = found.index;
    this.record(found.index);
  },

  frame() {
    if (!this.playing || !this.data) return;
    this.fraction = (this.fraction || 0) + this.speed;
    if (this.fraction >= 1) {
      const step = Math.floor(this.fraction);
      this.fraction -= step;
      if (this.tick + 1 >= this.data.ticks) { this.playing = false; return; }
      this.setTick(this.tick + step);
    }
  },

  show(on) { this.group.visible = on; },
};

function decodeReplay(bytes) {
  const head = new Uint32Array(bytes, 0, 4);
  if (head[0] !== 0x54565743) throw new Error('not a capsweep replay');
  const agents = head[2], ticks = head[3];
  let at = 16;
  const sizes = new Float32Array(agents);
  const dv = new DataView(bytes);
  for (let a = 0; a < agents; ++a) { sizes[a] = dv.getFloat32(at + 4, true); at += 16; }
  const start = new Float32Array(bytes, at, 3 * agents); at += 12 * agents;
  const ends = new Float32Array(bytes, at, 3 * agents * ticks); at += 12 * agents * ticks;
  const states = new Uint8Array(bytes, at, agents * ticks);
  return { agents, ticks, sizes, start, ends, states };
}
