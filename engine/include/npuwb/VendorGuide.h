#pragma once
// The vendor document the advisor's rules and the optimizer's passes cite by section (Finding::guideSection,
// Application::guideSection, PassInfo::guideSection): Rockchip's RKNN2 SDK Development Guide V2.5.0, mostly its
// section 5.2 "Performance analysis and network optimization".
#include <string>

namespace npuwb {

inline constexpr const char* kVendorGuide = "RKNN SDK user guide V2.5.0";

/// "RKNN SDK user guide V2.5.0, 5.2.4.1" for a section number, "" for none.
inline std::string citeVendorGuide(const std::string& section) {
    return section.empty() ? std::string() : std::string(kVendorGuide) + ", " + section;
}

}  // namespace npuwb
