// The 3D view: renderer, camera, orbit controls, and the world's mesh from GET /api/mesh
// (docs/VIEWER.md: shared float32 vertices, three indices and a layer mask per triangle, a
// heightfield as its grid).
'use strict';

const Scene = {
  info: null, mesh: null, layerMeshes: [], enabledLayers: 0xFFFFFFFF,

  init(container) {
    this.renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio);
    this.renderer.setClearColor(0x1d2026);
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.camera = new THREE.PerspectiveCamera(50, 1, 0.05, 1e6);
    this.controls = new THREE.OrbitControls(this.camera, this.renderer.domElement);
    this.scene.add(new THREE.HemisphereLight(0xddddee, 0x303028, 0.55));
    const sun = new THREE.DirectionalLight(0xffffff, 0.45);
    sun.position.set(0.4, 1, 0.3);
    this.scene.add(sun);
    this.container = container;
    window.addEventListener('resize', () => this.resize());
    this.resize();
    const loop = () => { requestAnimationFrame(loop); this.onFrame && this.onFrame(); this.render(); };
    requestAnimationFrame(loop);
  },

  resize() {
    const w = this.container.clientWidth || 800, h = this.container.clientHeight || 600;
    this.renderer.setSize(w, h);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
  },

  render() { this.renderer.render(this.scene, this.camera); },

  async load() {
    this.info = await (await fetch('/api/info')).json();
    const bytes = await (await fetch('/api/mesh')).arrayBuffer();
    this.mesh = decodeMesh(bytes);
    this.buildMeshes();
    const [lo, hi] = this.info.bounds;
    const centre = new THREE.Vector3((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
    const size = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
    this.size = size;
    this.camera.position.set(centre.x + size * 0.6, centre.y + size * 0.7, centre.z + size * 0.8);
    this.controls.target.copy(centre);
    this.controls.update();
    this.render();
  },

  // One THREE.Mesh per layer mask over the shared vertices (so toggling a layer is a visibility
  // flag), one for the grid.
  buildMeshes() {
    const m = this.mesh;
    const byMask = new Map();
    for (let k = 0; k < m.count; ++k) {
      const mask = m.layers[k];
      byMask.set(mask, (byMask.get(mask) || 0) + 1);
    }
    const palette = [0x8a9bb0, 0xb09a7a, 0x7ab08a, 0xa07ab0, 0xb07a7a, 0x7aa8b0];
    const vertices = new THREE.BufferAttribute(m.vertices, 3);
    let colour = 0;
    for (const [mask, count] of byMask) {
      let indices = m.indices;
      if (byMask.size > 1) {
        indices = new Uint32Array(count * 3);
        let at = 0;
        for (let k = 0; k < m.count; ++k) {
          if (m.layers[k] !== mask) continue;
          indices.set(m.indices.subarray(3 * k, 3 * k + 3), at);
          at += 3;
        }
      }
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', vertices);
      g.setIndex(new THREE.BufferAttribute(indices, 1));
      // Flat shading takes each triangle's normal from screen-space derivatives: no normal array
      // to compute for a million triangles before the first frame.
      const mesh = new THREE.Mesh(g, new THREE.MeshPhongMaterial({
        color: palette[colour++ % palette.length], side: THREE.DoubleSide, flatShading: true, shininess: 0,
        polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1 }));
      mesh.userData.mask = mask;
      this.scene.add(mesh);
      this.layerMeshes.push(mesh);
    }
    if (m.grid) {
      const { columns, rows, x0, z0, dx, dz, heights, holes } = m.grid;
      const positions = new Float32Array(columns * rows * 3);
      for (let r = 0; r < rows; ++r) for (let c = 0; c < columns; ++c) {
        const i = r * columns + c;
        positions[3 * i] = x0 + c * dx; positions[3 * i + 1] = heights[i]; positions[3 * i + 2] = z0 + r * dz;
      }
      const index = [];
      for (let r = 0; r + 1 < rows; ++r) for (let c = 0; c + 1 < columns; ++c) {
        if (holes[r * (columns - 1) + c]) continue;
        const a = r * columns + c, b = a + columns;
        index.push(a, b, a + 1, a + 1, b, b + 1);
      }
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(positions, 3));
      g.setIndex(index);
      const terrain = new THREE.Mesh(g, new THREE.MeshPhongMaterial({ color: 0x6f8f5f, side: THREE.DoubleSide,
        flatShading: true, shininess: 0,
        polygonOffset: true, polygonOffsetFactor: 1, polygonOffsetUnits: 1 }));
      terrain.userData.mask = this.info.heightfield.layers || 1;  // the heightfield's own layers
      this.scene.add(terrain);
      this.layerMeshes.push(terrain);
    }
    this.drawnTriangles = m.count + (m.grid ? m.terrainCount : 0);
  },

  layersPresent() {
    let all = 0;
    for (const mesh of this.layerMeshes) all |= mesh.userData.mask;
    return all >>> 0;
  },

  setLayers(mask) {
    this.enabledLayers = mask >>> 0;
    for (const mesh of this.layerMeshes) mesh.visible = (mesh.userData.mask & mask) !== 0;
  },

  // Triangle `i` of the world (hits name these) as three THREE.Vector3, or null.
  triangle(i) {
    const m = this.mesh;
    if (i === null || i === undefined) return null;
    if (i >= m.terrainBegin && i < m.terrainBegin + m.terrainCount && m.grid) {
      const t = i - m.terrainBegin, half = t % 2, cell = (t - half) / 2;
      const { columns, x0, z0, dx, dz, heights } = m.grid;
      const r = Math.floor(cell / (columns - 1)), c = cell % (columns - 1);
      const v = (rr, cc) => new THREE.Vector3(x0 + cc * dx, heights[rr * columns + cc], z0 + rr * dz);
      return half === 0 ? [v(r, c), v(r + 1, c), v(r, c + 1)] : [v(r, c + 1), v(r + 1, c), v(r + 1, c + 1)];
    }
    const k = i < m.terrainBegin ? i : i - m.terrainCount;
    if (k < 0 || k >= m.count) return null;
    const p = m.vertices;
    return [0, 1, 2].map(j => { const v = m.indices[3 * k + j]; return new THREE.Vector3(p[3 * v], p[3 * v + 1], p[3 * v + 2]); });
  },
};

function decodeMesh(bytes) {
  const head = new Uint32Array(bytes, 0, 8);
  if (head[0] !== 0x4D565743) throw new Error('not a capsweep mesh');
  if (head[1] !== 2) throw new Error('mesh version ' + head[1] + ', this page reads 2');
  const count = head[2], vertexCount = head[7];
  const m = { count, terrainBegin: head[3], terrainCount: head[4] };
  let at = 32;
  m.vertices = new Float32Array(bytes, at, vertexCount * 3);
  at += vertexCount * 12;
  m.indices = new Uint32Array(bytes, at, count * 3);
  at += count * 12;
  m.layers = new Uint32Array(bytes, at, count);
  at += count * 4;
  const columns = head[5], rows = head[6];
  if (columns > 1) {
    const f = new Float32Array(bytes, at, 4);
    at += 16;
    m.grid = { columns, rows, x0: f[0], z0: f[1], dx: f[2], dz: f[3],
               heights: new Float32Array(bytes, at, columns * rows),
               holes: new Uint8Array(bytes, at + 4 * columns * rows, (columns - 1) * (rows - 1)) };
  }
  return m;
}

// A capsule (segment a-b, radius r) as a wireframe mesh; an ellipsoid as a scaled sphere.
function capsuleObject(a, b, r, colour, opacity) {
  const group = new THREE.Group();
  const material = new THREE.MeshBasicMaterial({ color: colour, wireframe: true, transparent: opacity < 1, opacity });
  const axis = new THREE.Vector3().subVectors(b, a);
  const len = axis.length();
  const radius = Math.max(r, 0.01);
  const s1 = new THREE.Mesh(new THREE.SphereGeometry(radius, 12, 8), material);
  s1.position.copy(a);
  group.add(s1);
  if (len > 1e-6) {
    const s2 = s1.clone();
    s2.position.copy(b);
    group.add(s2);
    const cyl = new THREE.Mesh(new THREE.CylinderGeometry(radius, radius, len, 12, 1, true), material);
    cyl.position.copy(a).addScaledVector(axis, 0.5);
    cyl.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), axis.clone().normalize());
    group.add(cyl);
  }
  return group;
}

function ellipsoidObject(centre, radii, colour, opacity) {
  const mesh = new THREE.Mesh(new THREE.SphereGeometry(1, 16, 10),
    new THREE.MeshBasicMaterial({ color: colour, wireframe: true, transparent: opacity < 1, opacity }));
  mesh.position.copy(centre);
  mesh.scale.set(radii.x, radii.y, radii.z);
  return mesh;
}

const v3 = a => new THREE.Vector3(a[0], a[1], a[2]);
