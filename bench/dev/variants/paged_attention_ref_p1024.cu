// paged_attention_ref_p1024.cu: the reference with PA_PART 1024 (a knob to measure, not a lab file).
#define PA_PART 1024
#include "../../../reference/paged_attention.cu"
