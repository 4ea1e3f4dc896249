// paged_attention_tc_p2048.cu: the reference with PA_PART 2048 (a knob to measure, not a lab file).
#define PA_PART 2048
#include "../../../reference/paged_attention.cu"
