// Building the triangle mesh, its faces and the cell-to-face lists.
#include "mesh.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

Mesh buildMesh(int nx, int ny) {
  Mesh mesh;
  const float hx = 1.0f / nx, hy = 1.0f / ny;
  auto vertex = [&](int i, int j) { return float2{i * hx, j * hy}; };
  auto id = [&](int i, int j) { return j * (nx + 1) + i; };
  std::vector<int> corners;  // three vertex ids per triangle
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int tri[2][3] = {{id(i, j), id(i + 1, j), id(i + 1, j + 1)}, {id(i, j), id(i + 1, j + 1), id(i, j + 1)}};
      for (const auto& t : tri) {
        Cell c;
        float2 v[3];
        for (int a = 0; a < 3; ++a) {
          v[a] = vertex(t[a] % (nx + 1), t[a] / (nx + 1));
          corners.push_back(t[a]);
        }
        c.centroid = float2{(v[0].x + v[1].x + v[2].x) / 3, (v[0].y + v[1].y + v[2].y) / 3};
        c.volume = 0.5f * std::fabs((v[1].x - v[0].x) * (v[2].y - v[0].y) - (v[2].x - v[0].x) * (v[1].y - v[0].y));
        c.k = c.centroid.y < 0.5f ? 1.0f : 0.2f;  // two layers of material
        const float dx = c.centroid.x - 0.5f, dy = c.centroid.y - 0.5f;
        c.T = dx * dx + dy * dy < 0.04f ? 1.0f : 0.0f;
        mesh.cells.push_back(c);
      }
    }
  // One face per edge; the first triangle that has it is the left cell.
  const int cellCount = int(mesh.cells.size());
  std::unordered_map<long long, int> edges;
  edges.reserve(2 * size_t(cellCount));
  for (int c = 0; c < cellCount; ++c)
    for (int a = 0; a < 3; ++a) {
      const int v0 = corners[3 * c + a], v1 = corners[3 * c + (a + 1) % 3];
      const long long key = (long long)std::min(v0, v1) << 32 | std::max(v0, v1);
      auto found = edges.find(key);
      if (found != edges.end()) {
        mesh.faces[found->second].right = c;
        continue;
      }
      const float2 p0 = vertex(v0 % (nx + 1), v0 / (nx + 1)), p1 = vertex(v1 % (nx + 1), v1 / (nx + 1));
      Face f;
      f.left = c;
      f.area = std::hypot(p1.x - p0.x, p1.y - p0.y);
      f.normal = float2{(p1.y - p0.y) / f.area, -(p1.x - p0.x) / f.area};
      const float2 mid{0.5f * (p0.x + p1.x), 0.5f * (p0.y + p1.y)};
      if ((mid.x - mesh.cells[c].centroid.x) * f.normal.x + (mid.y - mesh.cells[c].centroid.y) * f.normal.y < 0)
        f.normal = float2{-f.normal.x, -f.normal.y};
      // Until a second triangle claims it, a face is on the boundary.
      f.right = mid.x < 1e-6f ? HOT_WALL : (mid.x > 1 - 1e-6f ? COLD_WALL : INSULATED);
      edges[key] = int(mesh.faces.size());
      mesh.faces.push_back(f);
    }
  mesh.cellFaceStart.assign(cellCount + 1, 0);
  for (const Face& f : mesh.faces) {
    ++mesh.cellFaceStart[f.left + 1];
    if (f.right >= 0) ++mesh.cellFaceStart[f.right + 1];
  }
  for (int c = 0; c < cellCount; ++c) mesh.cellFaceStart[c + 1] += mesh.cellFaceStart[c];
  mesh.cellFaces.resize(mesh.cellFaceStart[cellCount]);
  std::vector<int> cursor(mesh.cellFaceStart.begin(), mesh.cellFaceStart.end() - 1);
  for (int f = 0; f < int(mesh.faces.size()); ++f) {
    mesh.cellFaces[cursor[mesh.faces[f].left]++] = f;
    if (mesh.faces[f].right >= 0) mesh.cellFaces[cursor[mesh.faces[f].right]++] = f;
  }
  return mesh;
}
