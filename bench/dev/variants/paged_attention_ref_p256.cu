// paged_attention_ref_p256.cu: the reference with PA_PART 256 (a knob to measure, not a lab file).
#define PA_PART 256
#include "../../../reference/paged_attention.cu"
