// libFuzzer target: the board agent's job (one JSON object on its stdin, npuwb/AgentProtocol.h) through the wire
// format's parser, the one both the agent and its client use.
#include "FuzzSupport.h"
#include "npuwb/AgentProtocol.h"
#include "npuwb/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        (void)npuwb::parseAgentJob(npuwb::fuzz::bytesOf(data, size), "fuzz job");
    } catch (const npuwb::Error&) {
    }
    return 0;
}
