-- How a status change collects its failures: every check records what failed and the
-- script goes on checking other objects, so one answer names every object that failed;
-- nothing is written when any did.
--#include callState.lua

-- Records a failed check: an error code, the object's label, and a detail for the message.
local function fail(code, label, detail)
  local errors = call.errors
  errors[#errors + 1] = { code, label, detail or '' }
end
