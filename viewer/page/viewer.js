// The page: loads the world, switches between the three modes, and keeps window.capsweepViewer,
// a small state the tests read (mesh triangles drawn, the last sweep's bytes, the replay's tick).
// ?mode=sweep|answers|replay opens a mode; ?test=sweep&request=JSON, ?test=replay or both
// (?test=sweep,replay) run a scripted scenario and writes the state into <pre id="state"> (tests/viewer/browser_test.cpp).
'use strict';

const Viewer = {
  state: { mode: null, ready: false, meshTriangles: 0, meshMs: null, lastSweep: null, replayTick: null, errors: [] },
  modes: { sweep: Lab, answers: Answers, replay: Replay },

  publish() {
    window.capsweepViewer = this.state;
    document.getElementById('state').textContent = JSON.stringify(this.state);
  },

  setMode(mode) {
    this.state.mode = mode;
    for (const [name, m] of Object.entries(this.modes)) m.show(name === mode);
    for (const b of document.querySelectorAll('button.mode')) b.classList.toggle('active', b.dataset.mode === mode);
    this.modes[mode].panel(document.getElementById('panel'));
    this.publish();
  },

  layerToggles() {
    const present = Scene.layersPresent();
    const el = document.getElementById('layers');
    el.innerHTML = 'layers: ';
    for (let l = 0; l < 32; ++l) {
      if (!(present & (1 << l))) continue;
      const box = document.createElement('label');
      box.style.display = 'inline';
      box.innerHTML = `<input type="checkbox" checked data-layer="${l}"> ${l + 1} `;
      el.appendChild(box);
    }
    el.addEventListener('change', () => {
      let mask = 0;
      for (const b of el.querySelectorAll('input')) if (b.checked) mask |= 1 << Number(b.dataset.layer);
      Scene.setLayers(mask === 0 ? 0xFFFFFFFF : mask | ~present);
      if (this.state.mode === 'sweep') Lab.changed();
    });
  },

  // Pixels of the canvas that are not the background: a drawn mesh is not blank.
  drawnPixels() {
    const gl = Scene.renderer.getContext();
    const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
    const px = new Uint8Array(4 * w * h);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    let n = 0;
    for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - 0x1d) + Math.abs(px[i + 1] - 0x20) + Math.abs(px[i + 2] - 0x26) > 12) ++n;
    return n;
  },

  async start() {
    const params = new URLSearchParams(location.search);
    try {
      Scene.init(document.getElementById('view'));
      await Scene.load();
      Scene.render();
      this.state.meshTriangles = Scene.drawnTriangles;
      this.state.meshMs = Math.round(performance.now());
      this.state.drawnPixels = this.drawnPixels();
      document.getElementById('scene-name').textContent = `${Scene.info.scene} (${Scene.info.triangles} triangles)`;
      this.layerToggles();
      Lab.init();
      await Answers.init();
      await Replay.init();
      Scene.onFrame = () => Replay.frame();
      for (const b of document.querySelectorAll('button.mode')) b.addEventListener('click', () => this.setMode(b.dataset.mode));
      Scene.renderer.domElement.addEventListener('dblclick', e => {
        if (this.state.mode === 'answers') Answers.pick(e);
        if (this.state.mode === 'replay') Replay.pick(e);
      });
      const initial = params.get('mode') || (Scene.info.trace ? 'replay' : Scene.info.queries ? 'answers' : 'sweep');
      this.setMode(this.modes[initial] ? initial : 'sweep');
      this.state.ready = true;
      const tests = (params.get('test') || '').split(',');
      if (tests.includes('sweep')) {
        const request = JSON.parse(params.get('request'));
        if (this.state.mode === 'sweep') Lab.place(request);
        await Lab.run(request);
      }
      if (tests.includes('replay') && Replay.data) {
        for (let t = 0; t < Replay.data.ticks; ++t) Replay.setTick(t);  // every tick, in order, to the last
      }
      if (params.has('look')) {  // ?look=x,y,z,tx,ty,tz: a camera for screenshots
        const v = params.get('look').split(',').map(Number);
        Scene.camera.position.set(v[0], v[1], v[2]);
        Scene.controls.target.set(v[3], v[4], v[5]);
        Scene.controls.update();
      }
    } catch (e) {
      this.state.errors.push(String(e && e.stack || e));
    }
    this.state.done = true;
    this.publish();
  },
};

Viewer.start();
