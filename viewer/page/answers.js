// Answers inspector: --queries and --answers drawn as shapes at their contact points, filtered,
// a record on click; --compare's answers against them, differences highlighted.
'use strict';

const Answers = {
  group: null, queries: [], hits: [], other: null, filter: 'all',

  async init() {
    this.group = new THREE.Group();
    Scene.scene.add(this.group);
    if (!Scene.info.queries) return;
    this.queries = (await (await fetch('/api/queries')).json()).queries;
    this.hits = (await (await fetch('/api/answers')).json()).hits;
    if (Scene.info.compare) this.other = (await (await fetch('/api/compare')).json()).hits;
  },

  differs(i) {
    if (!this.other) return false;
    const a = this.hits[i], b = this.other[i];
    return JSON.stringify(a) !== JSON.stringify(b);
  },

  shown(i) {
    const h = this.hits[i], f = this.filter;
    if (f === 'all') return true;
    if (f === 'hits') return h.hit;
    if (f === 'misses') return !h.hit;
    if (f === 'start') return h.started_in_contact;
    if (f === 'differ') return this.differs(i);
    if (f.startsWith('feature:')) return h.feature === f.slice(8);
    if (f.startsWith('triangle:')) return h.triangle === Number(f.slice(9));
    return true;
  },

  panel(el) {
    if (!Scene.info.queries) {
      el.innerHTML = '<h3>Answers inspector</h3><p>Start with --queries Q.cwsq --answers R.cwsr [--compare R2.cwsr].</p>';
      return;
    }
    const differing = this.other ? this.hits.filter((_, i) => this.differs(i)).length : 0;
    el.innerHTML = `<h3>Answers inspector</h3>
      <p>${this.queries.length} queries, ${this.hits.filter(h => h.hit).length} hits${this.other ? `, <span class="diff">${differing} differ</span> from ${Scene.info.compare.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)}` : ''}</p>
      <label>show <select id="ans-filter">
        <option value="all">all</option><option value="hits">hits</option><option value="misses">misses</option>
        <option value="start">starts in contact</option><option value="feature:face">face</option>
        <option value="feature:edge">edge</option><option value="feature:vertex">vertex</option>
        ${this.other ? '<option value="differ">differences</option>' : ''}</select></label>
      <label>triangle <input id="ans-triangle" type="number" min="0"> <button id="ans-tri-go">filter</button></label>
      <pre id="ans-record">double-click a shape to see its record</pre>`;
    el.querySelector('#ans-filter').addEventListener('change', e => { this.filter = e.target.value; this.draw(); });
    el.querySelector('#ans-tri-go').addEventListener('click', () => {
      this.filter = 'triangle:' + el.querySelector('#ans-triangle').value; this.draw();
    });
    this.draw();
  },

  // Each shown query as its shape at t (hits red, misses grey, starts in contact yellow,
  // differing answers orange), at most 5,000 of them.
  draw() {
    this.group.children.slice().forEach(c => this.group.remove(c));
    let drawn = 0;
    for (let i = 0; i < this.queries.length && drawn < 5000; ++i) {
      if (!this.shown(i)) continue;
      const q = this.queries[i], h = this.hits[i];
      const colour = this.differs(i) ? 0xff9933 : h.started_in_contact ? 0xffee44 : h.hit ? 0xff4444 : 0x888888;
      const motion = v3(q.motion);
      let obj;
      if (q.shape === 'ellipsoid') {
        obj = ellipsoidObject(v3(q.centre).addScaledVector(motion, h.t), v3(q.radii), colour, 0.8);
      } else {
        obj = capsuleObject(v3(q.a).addScaledVector(motion, h.t), v3(q.b).addScaledVector(motion, h.t), q.radius, colour, 0.8);
      }
      obj.userData.record = i;
      obj.traverse(o => { o.userData.record = i; });
      this.group.add(obj);
      ++drawn;
    }
    Viewer.state.answersDrawn = drawn;
    Viewer.publish();
  },

  pick(event) {
    const rect = Scene.renderer.domElement.getBoundingClientRect();
    const mouse = new THREE.Vector2(((event.clientX - rect.left) / rect.width) * 2 - 1, -((event.clientY - rect.top) / rect.height) * 2 + 1);
    const ray = new THREE.Raycaster();
    ray.setFromCamera(mouse, Scene.camera);
    const found = ray.intersectObjects(this.group.children, true)[0];
    if (!found) return;
    const i = found.object.userData.record;
    const text = { record: i, query: this.queries[i], answer: this.hits[i] };
    if (this.other) text.compare = this.other[i];
    document.getElementById('ans-record').textContent = JSON.stringify(text, null, 1);
    if (this.hits[i].triangle !== null) {
      const tri = Scene.triangle(this.hits[i].triangle);
      if (tri) {
        if (this.highlight) this.group.remove(this.highlight);
        this.highlight = new THREE.Mesh(new THREE.BufferGeometry().setFromPoints(tri),
          new THREE.MeshBasicMaterial({ color: 0xff3366, side: THREE.DoubleSide, depthTest: false }));
        this.group.add(this.highlight);
      }
    }
  },

  show(on) { this.group.visible = on; },
};
