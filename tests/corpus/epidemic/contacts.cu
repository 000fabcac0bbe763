// The synthetic population's contact graph: everyone in one's household, plus a fixed number of
// random acquaintances (work, school, transport), drawn with a counter-based hash.
#include "agent.h"

int contactGraphEdges(int n, int householdSize, int randomContacts) {
  return n * (householdSize - 1 + randomContacts);
}

void buildContactGraph(int n, int householdSize, int randomContacts, uint32_t seed, int* rowStart,
                       std::int32_t* contacts) {
  int e = 0;
  for (int i = 0; i < n; ++i) {
    rowStart[i] = e;
    int first = i / householdSize * householdSize;
    for (int k = 0; k < householdSize; ++k) {
      int j = first + k;
      if (j == i) continue;
      contacts[e++] = j < n ? j : (j - householdSize + n) % n;  // the last, partial household wraps
    }
    for (int k = 0; k < randomContacts; ++k) {
      int j = (int)(hashDraw(i, 1000 + k, seed) % (uint32_t)n);
      contacts[e++] = j == i ? (i + 1) % n : j;
    }
  }
  rowStart[n] = e;
}
