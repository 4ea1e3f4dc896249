// paged_attention_tc_p512.cu: the reference with PA_PART 512 (a knob to measure, not a lab file).
#define PA_PART 512
#include "../../../reference/paged_attention.cu"
