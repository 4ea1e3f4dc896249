// paged_attention_ref_w8.cu: the reference with PA_WARPS 8 (a knob to measure, not a lab file).
#define PA_WARPS 8
#include "../../../reference/paged_attention.cu"
