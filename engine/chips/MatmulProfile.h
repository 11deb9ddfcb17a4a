#pragma once
// Parses a chip profile's "matmul" section (resources/chips/README.md) into MatmulChipProfile.
#include "chips/ProfileFields.h"
#include "npuwb/ChipProfile.h"

namespace npuwb {

/// Throws InvalidInput naming the file and the dotted field (a malformed layout, a missing kind, an unknown type).
MatmulChipProfile parseMatmulProfile(const ProfileFields& matmul);

}  // namespace npuwb
