constexpr float kFactor = 2.0f;
