// Sweep lab: a capsule, ray or ellipsoid placed with handles, its motion dragged; every change
// asks POST /api/sweep and draws the answer (docs/VIEWER.md).
'use strict';

const Lab = {
  group: null, answer: null, last: null, pending: false,

  init() {
    const s = Scene;
    this.group = new THREE.Group();
    s.scene.add(this.group);
    const [lo, hi] = s.info.bounds;
    const centre = new THREE.Vector3((lo[0] + hi[0]) / 2, hi[1], (lo[2] + hi[2]) / 2);
    // Two handles: the shape's start (its base, or centre for an ellipsoid) and the motion's end.
    const handleGeometry = new THREE.SphereGeometry(Math.max(s.size * 0.004, 0.05), 12, 8);
    this.start = new THREE.Mesh(handleGeometry, new THREE.MeshBasicMaterial({ color: 0x33ff99 }));
    this.end = new THREE.Mesh(handleGeometry, new THREE.MeshBasicMaterial({ color: 0xff9933 }));
    this.start.position.copy(centre);
    this.end.position.set(centre.x, lo[1] - 1, centre.z);
    this.group.add(this.start, this.end);
    this.gizmos = [this.start, this.end].map(handle => {
      const g = new THREE.TransformControls(s.camera, s.renderer.domElement);
      g.attach(handle);
      g.setSize(0.7);
      g.addEventListener('dragging-changed', e => { s.controls.enabled = !e.value; });
      g.addEventListener('objectChange', () => this.changed());
      s.scene.add(g);
      return g;
    });
    this.answer = new THREE.Group();
    this.group.add(this.answer);
    this.motionLine = new THREE.Line(new THREE.BufferGeometry().setFromPoints([this.start.position, this.end.position]),
      new THREE.LineBasicMaterial({ color: 0xffcc66 }));
    this.group.add(this.motionLine);
  },

  panel(el) {
    el.innerHTML = `
      <h3>Sweep lab</h3>
      <label>shape <select id="lab-shape"><option>capsule</option><option>ray</option><option>ellipsoid</option></select></label>
      <label>radius <input id="lab-radius" type="number" step="0.05" value="0.4"> height <input id="lab-height" type="number" step="0.1" value="1.0"></label>
      <label>ellipsoid radii <input id="lab-rx" type="number" step="0.05" value="0.35"><input id="lab-ry" type="number" step="0.05" value="0.9"><input id="lab-rz" type="number" step="0.05" value="0.35"></label>
      <label>path <select id="lab-path"><option>simd</option><option>scalar</option><option>brute</option></select></label>
      <p>Drag the green handle (start) and the orange one (end of the motion).</p>
      <button id="lab-copy">copy as CWSQ</button>
      <table id="lab-numbers"></table>`;
    for (const id of ['lab-shape', 'lab-radius', 'lab-height', 'lab-rx', 'lab-ry', 'lab-rz', 'lab-path']) {
      el.querySelector('#' + id).addEventListener('change', () => this.changed());
    }
    el.querySelector('#lab-copy').addEventListener('click', () => this.download());
    this.changed();
  },

  show(on) {
    this.group.visible = on;
    for (const g of this.gizmos) { g.visible = on; g.enabled = on; }
  },

  value(id) { return Math.fround(parseFloat(document.getElementById(id).value)); },
  f3(v) { return [Math.fround(v.x), Math.fround(v.y), Math.fround(v.z)]; },

  // The request the handles and fields describe (numbers rounded to float, as the server reads them).
  request() {
    const shape = document.getElementById('lab-shape').value;
    const a = this.f3(this.start.position);
    const motion = this.f3(new THREE.Vector3().subVectors(this.end.position, this.start.position));
    let q;
    if (shape === 'capsule') {
      const r = this.value('lab-radius'), h = this.value('lab-height');
      q = { shape, a, b: [a[0], Math.fround(a[1] + h), a[2]], radius: r, motion };
    } else if (shape === 'ray') {
      q = { shape, from: a, motion };
    } else {
      q = { shape, centre: a, radii: [this.value('lab-rx'), this.value('lab-ry'), this.value('lab-rz')], motion };
    }
    return { path: document.getElementById('lab-path').value, layers: Scene.enabledLayers, queries: [q] };
  },

  // The handles and fields set to a request's first query (the scripted scenarios' start).
  place(request) {
    const q = request.queries[0];
    const start = v3(q.a || q.centre || q.from);
    this.start.position.copy(start);
    this.end.position.copy(start.clone().add(v3(q.motion)));
    document.getElementById('lab-shape').value = q.shape;
    if (q.shape === 'capsule') {
      document.getElementById('lab-radius').value = q.radius;
      document.getElementById('lab-height').value = q.b[1] - q.a[1];
    } else if (q.shape === 'ellipsoid') {
      ['lab-rx', 'lab-ry', 'lab-rz'].forEach((id, k) => { document.getElementById(id).value = q.radii[k]; });
    }
    if (request.path) document.getElementById('lab-path').value = request.path;
    this.motionLine.geometry.setFromPoints([this.start.position, this.end.position]);
  },

  changed() {
    this.motionLine.geometry.setFromPoints([this.start.position, this.end.position]);
    if (this.pending) { this.again = true; return; }
    this.run(this.request());
  },

  // One request at a time, in the order asked: the answer drawn is the last one asked for.
  run(request) {
    this.queue = (this.queue || Promise.resolve()).then(() => this.send(request));
    return this.queue;
  },

  async send(request) {
    this.pending = true;
    try {
      const reply = await fetch('/api/sweep', { method: 'POST', body: JSON.stringify(request) });
      const text = await reply.text();
      if (!reply.ok) throw new Error(text);
      this.last = { request, answer: JSON.parse(text) };
      this.draw();
      Viewer.state.lastSweep = { cwsq: this.last.answer.cwsq, cwsr: this.last.answer.cwsr, hit: this.last.answer.hits[0].hit };
      Viewer.publish();
    } catch (e) {
      // As text, never markup: a refusal quotes the request (and ?test=sweep&request= is in the URL).
      const cell = document.createElement('td');
      cell.className = 'diff';
      cell.textContent = e.message;
      const row = document.createElement('tr');
      row.appendChild(cell);
      document.getElementById('lab-numbers').replaceChildren(row);
    }
    this.pending = false;
    if (this.again) { this.again = false; this.changed(); }
  },

  draw() {
    const { request, answer } = this.last;
    const q = request.queries[0], h = answer.hits[0];
    this.answer.clear ? this.answer.clear() : this.answer.children.slice().forEach(c => this.answer.remove(c));
    const motion = v3(q.motion);
    const t = h.t;
    // The library's tolerance (sweep.h, ray_radius x 2): max(0.1 mm, 4e-7 x the largest |coordinate|
    // of the query's start and end, a, b, a + d, b + d), not of the motion itself.
    const a0 = q.a || q.centre || q.from, b0 = q.b || a0;
    const ends = [a0, b0].map(p => p.map((x, k) => Math.fround(x + q.motion[k])));
    const big = Math.max(...[].concat(a0, b0, ...ends).map(Math.abs));
    const tolerance = Math.max(1e-4, 4e-7 * big);
    if (q.shape === 'ellipsoid') {
      const c = v3(q.centre), r = v3(q.radii);
      this.answer.add(ellipsoidObject(c, r, 0x33ff99, 0.4));
      const at = c.clone().addScaledVector(motion, t);
      this.answer.add(ellipsoidObject(at, r, h.hit ? 0xff4444 : 0x33ff99, 1));
      for (const s of [-tolerance, tolerance]) {
        this.answer.add(ellipsoidObject(at, r.clone().addScalar(s), 0xffff66, 0.3));
      }
    } else {
      const a = v3(q.a || q.from), b = v3(q.b || q.from), r = q.radius || 0;
      this.answer.add(capsuleObject(a, b, r, 0x33ff99, 0.4));
      const a1 = a.clone().addScaledVector(motion, t), b1 = b.clone().addScaledVector(motion, t);
      this.answer.add(capsuleObject(a1, b1, r, h.hit ? 0xff4444 : 0x33ff99, 1));
      for (const s of [-tolerance, tolerance]) this.answer.add(capsuleObject(a1, b1, Math.max(r + s, 0), 0xffff66, 0.3));
    }
    if (h.hit) {
      const p = v3(h.point), n = v3(h.normal);
      const dot = new THREE.Mesh(new THREE.SphereGeometry(Math.max(Scene.size * 0.003, 0.03), 10, 6),
        new THREE.MeshBasicMaterial({ color: 0xffffff }));
      dot.position.copy(p);
      this.answer.add(dot);
      this.answer.add(new THREE.ArrowHelper(n, p, Math.max(Scene.size * 0.03, 0.5), 0x66ccff));
      const tri = Scene.triangle(h.triangle);
      if (tri) {
        const g = new THREE.BufferGeometry().setFromPoints(tri);
        this.answer.add(new THREE.Mesh(g, new THREE.MeshBasicMaterial({ color: 0xff3366, side: THREE.DoubleSide,
          depthTest: false, transparent: true, opacity: 0.7 })));
        this.answer.add(new THREE.LineLoop(g, new THREE.LineBasicMaterial({ color: 0xffffff, depthTest: false })));
      }
    }
    const rows = [['hit', h.hit], ['t', h.t], ['feature', h.feature], ['triangle', h.triangle],
      ['normal', h.normal.map(x => x.toPrecision(6)).join(', ')], ['point', h.point.map(x => x.toPrecision(7)).join(', ')],
      ['depth', h.depth], ['started in contact', h.started_in_contact], ['status', h.status], ['path', answer.path],
      ['tolerance', tolerance.toExponential(2)]];
    document.getElementById('lab-numbers').innerHTML = rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join('');
  },

  // "copy as CWSQ": the one-query file the server encoded, downloaded (and its base64 copied).
  download() {
    if (!this.last) return;
    const b64 = this.last.answer.cwsq;
    const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
    link.download = 'sweep.cwsq';
    link.click();
    if (navigator.clipboard) navigator.clipboard.writeText(b64).catch(() => {});
  },
};
