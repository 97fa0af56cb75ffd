// Pixel conversion (from_pixels / to_pixels / resize) lives here.
#include "mat.h"
