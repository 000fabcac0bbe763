#include <cmath>

#include "mesh.h"

// Nodes on a (side+1)^2 grid, interior ones moved by up to a fifth of a cell; each cell split into
// two triangles. Cells with the same parity in x and y share no node, so (parity x, parity y,
// triangle) gives 8 colors.
Mesh buildMesh(int side) {
  Mesh m;
  m.side = side;
  const int perRow = side + 1;
  const float h = 1.0f / side;
  unsigned int state = 88172645u;
  auto jitter = [&]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return ((state & 0xffff) / 65535.0f - 0.5f) * 0.4f * h;
  };
  m.nodes.resize(perRow * perRow);
  m.fixed.resize(perRow * perRow);
  for (int j = 0; j <= side; ++j)
    for (int i = 0; i <= side; ++i) {
      bool boundary = i == 0 || j == 0 || i == side || j == side;
      float x = i * h + (boundary ? 0.0f : jitter());
      float y = j * h + (boundary ? 0.0f : jitter());
      Node& n = m.nodes[j * perRow + i];
      n.x = x;
      n.y = y;
      n.load = 100.0f * std::sin(3.14159265f * x) * std::sin(3.14159265f * y);
      m.fixed[j * perRow + i] = boundary;
    }
  m.colorStart.assign(kColors + 1, 0);
  for (int color = 0; color < kColors; ++color) {
    m.colorStart[color] = static_cast<int>(m.elements.size());
    int px = color & 1, py = (color >> 1) & 1, tri = color >> 2;
    for (int j = py; j < side; j += 2)
      for (int i = px; i < side; i += 2) {
        int n00 = j * perRow + i, n10 = n00 + 1, n01 = n00 + perRow, n11 = n01 + 1;
        Element e;
        if (tri == 0) {
          e.node[0] = n00, e.node[1] = n10, e.node[2] = n11;
        } else {
          e.node[0] = n00, e.node[1] = n11, e.node[2] = n01;
        }
        // A stiff inclusion in the upper right quarter.
        e.material = (i >= side / 2 && j >= side / 2) ? 1 : 0;
        m.elements.push_back(e);
      }
  }
  m.colorStart[kColors] = static_cast<int>(m.elements.size());

  const int nodes = static_cast<int>(m.nodes.size());
  m.nodeElemStart.assign(nodes + 1, 0);
  for (const Element& e : m.elements)
    for (int a = 0; a < 3; ++a) ++m.nodeElemStart[e.node[a] + 1];
  for (int n = 0; n < nodes; ++n) m.nodeElemStart[n + 1] += m.nodeElemStart[n];
  m.nodeElemList.resize(m.nodeElemStart[nodes]);
  std::vector<int> cursor(m.nodeElemStart.begin(), m.nodeElemStart.end() - 1);
  for (int e = 0; e < static_cast<int>(m.elements.size()); ++e)
    for (int a = 0; a < 3; ++a) m.nodeElemList[cursor[m.elements[e].node[a]]++] = 3 * e + a;
  return m;
}
