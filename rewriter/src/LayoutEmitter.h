// The code inserted after a planned struct's definition: the device-layout struct (and the
// __align__(16) cluster structs), and the host helpers the rewritten calls need.
#pragma once

#include "DeviceLayout.h"
#include "Facts.h"

#include <string>

namespace relayout::rw {

// `helpers` is a mask of Helper; relayoutPlace and the element size are always emitted.
std::string emitDeviceLayout(const DeviceLayout& layout, const StructDef& def, unsigned helpers);

}  // namespace relayout::rw
