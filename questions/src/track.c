/* track.c: the interview tracks (cuda, inference, compiler): their names, the question
 * topics each asks about and the labs each prefers. */
#include "questions/track.h"
#include "questions/question.h"

#include <string.h>

static const char *const topics_cuda[] = {"memory", "warps", "sm_arch", "occupancy", "tensor_cores",
                                          "streams", "memory_mgmt", "profiling", "gemm",
                                          "hopper_blackwell", "multi_gpu", "cpp", NULL};
static const char *const topics_inference[] = {"llm_inference", "attention_serving", "quantization",
                                               "quant_methods", "gemm", "memory", "tensor_cores",
                                               "multi_gpu", "hopper_blackwell", "streams", "profiling",
                                               "occupancy", "deployment", NULL};
static const char *const topics_compiler[] = {"compilers", "cpp", "gemm", "memory", "sm_arch", "warps",
                                              "tensor_cores", "hopper_blackwell", "occupancy", NULL};
static const char *const labs_cuda[] = {"reduce", "transpose", "softmax", "layernorm", "gemm", "iou",
                                        "nms", "topo_sort", NULL};
static const char *const labs_inference[] = {"paged_attention", "softmax", "layernorm", "gemm", "nms",
                                             "iou", "reduce", NULL};
static const char *const labs_compiler[] = {"gemm", "transpose", "topo_sort", "reduce", "softmax", NULL};
static const char *const track_names[CL_NTRACKS] = {"cuda", "inference", "compiler"};

int cl_track_parse(const char *name, cl_track *out)
{
    for (int i = 0; i < CL_NTRACKS; i++)
        if (name && !strcmp(name, track_names[i])) {
            *out = (cl_track)i;
            return 0;
        }
    return -1;
}

const char *cl_track_name(cl_track t) { return (unsigned)t < CL_NTRACKS ? track_names[t] : "?"; }

static const cl_qtext track_titles[CL_NTRACKS] = {
    {"CUDA programming", "CUDA 编程"}, {"LLM inference", "大模型推理"}, {"ML compilers", "AI 编译器"}};

const char *cl_track_title(cl_track t, cl_lang lang)
{
    return (unsigned)t < CL_NTRACKS ? cl_qtext_get(&track_titles[t], lang) : "?";
}

const char *const *cl_track_topics(cl_track t)
{
    return t == CL_TRACK_INFERENCE ? topics_inference : t == CL_TRACK_COMPILER ? topics_compiler : topics_cuda;
}

const char *const *cl_track_labs(cl_track t)
{
    return t == CL_TRACK_INFERENCE ? labs_inference : t == CL_TRACK_COMPILER ? labs_compiler : labs_cuda;
}
