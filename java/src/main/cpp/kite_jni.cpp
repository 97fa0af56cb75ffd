// The JNI side of the Java binding (java/src/main/java/org/kite). The same
// source builds for the host JVM (CMake, KITE_JAVA=ON) and for Android (the
// AAR, docs/java.md). Natives are registered in JNI_OnLoad, so the class and
// method names live in one table below. Failures throw org.kite.KiteException
// with kite's last error text; no C++ exception crosses the boundary (allocations
// are nothrow, so this also builds with the NDK's default -fno-exceptions).

#include <jni.h>

#include "datareader.h"
#include "log.h"
#include "mat.h"
#include "net.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#ifndef KITE_VERSION_STRING
#define KITE_VERSION_STRING "unknown"
#endif

namespace {

struct NetHandle
{
    kite::Net net;
    std::vector<unsigned char> model; // weights the Net uses in place (loadModel(byte[]))
};

struct ExtractorHandle
{
    explicit ExtractorHandle(const kite::Extractor& e)
        : ex(e)
    {
    }
    kite::Extractor ex;
};

jclass g_mat_class = nullptr;      // org.kite.Mat (global ref)
jmethodID g_mat_ctor = nullptr;    // Mat(float[], int dims, int w, int h, int d, int c)
jclass g_exception_class = nullptr; // org.kite.KiteException (global ref)

NetHandle* net_of(jlong h)
{
    return reinterpret_cast<NetHandle*>(static_cast<intptr_t>(h));
}

ExtractorHandle* ex_of(jlong h)
{
    return reinterpret_cast<ExtractorHandle*>(static_cast<intptr_t>(h));
}

// "<what>: <kite's last error>" as a KiteException
void throw_kite(JNIEnv* env, const std::string& what)
{
    std::string msg = what;
    const char* last = kite::last_error();
    if (last && last[0])
        msg += std::string(": ") + last;
    env->ThrowNew(g_exception_class, msg.c_str());
}

void throw_oom(JNIEnv* env, const char* what)
{
    jclass c = env->FindClass("java/lang/OutOfMemoryError");
    if (c)
        env->ThrowNew(c, what);
}

std::string jstring_to_string(JNIEnv* env, jstring s)
{
    if (!s)
        return std::string();
    const char* c = env->GetStringUTFChars(s, nullptr);
    std::string r = c ? c : "";
    if (c)
        env->ReleaseStringUTFChars(s, c);
    return r;
}

std::string quoted(const std::string& s)
{
    return "'" + s + "'";
}

bool check_string(JNIEnv* env, jstring s, const char* what)
{
    if (s)
        return true;
    jclass c = env->FindClass("java/lang/NullPointerException");
    if (c)
        env->ThrowNew(c, what);
    return false;
}

// a Java Mat holding a copy of m (fp32, elempack 1)
jobject mat_to_java(JNIEnv* env, const kite::Mat& m)
{
    if (m.empty())
    {
        jfloatArray a = env->NewFloatArray(0);
        if (!a)
            return nullptr;
        return env->NewObject(g_mat_class, g_mat_ctor, a, 0, 0, 0, 0, 0);
    }
    const int channels = m.dims >= 3 ? m.c : 1;
    const size_t plane = (size_t)m.w * m.h * m.d;
    const size_t total = plane * channels;
    if (total > (size_t)INT32_MAX)
    {
        env->ThrowNew(g_exception_class, "extract: the blob is too large for a Java array");
        return nullptr;
    }
    jfloatArray a = env->NewFloatArray((jsize)total);
    if (!a)
        return nullptr; // OutOfMemoryError pending
    for (int q = 0; q < channels; q++)
        env->SetFloatArrayRegion(a, (jsize)(plane * q), (jsize)plane, (const float*)m.data + m.cstep * q);
    return env->NewObject(g_mat_class, g_mat_ctor, a, m.dims, m.w, m.dims >= 2 ? m.h : 1, m.dims == 4 ? m.d : 1, channels);
}

// a kite Mat with a copy of the Java values (dims/w/h/d/c checked by Mat.java)
bool mat_from_java(JNIEnv* env, jfloatArray data, jint dims, jint w, jint h, jint d, jint c, kite::Mat& m)
{
    if (dims == 1)
        m.create(w, (size_t)4u);
    else if (dims == 2)
        m.create(w, h, (size_t)4u);
    else if (dims == 3)
        m.create(w, h, c, (size_t)4u);
    else if (dims == 4)
        m.create(w, h, d, c, (size_t)4u);
    else
    {
        env->ThrowNew(g_exception_class, "input: the Mat is empty");
        return false;
    }
    if (m.empty())
    {
        throw_oom(env, "kite: out of memory for an input Mat");
        return false;
    }
    const int channels = dims >= 3 ? c : 1;
    const size_t plane = (size_t)m.w * m.h * m.d;
    if ((size_t)env->GetArrayLength(data) != plane * channels)
    {
        env->ThrowNew(g_exception_class, "input: the Mat's array does not match its shape");
        return false;
    }
    for (int q = 0; q < channels; q++)
        env->GetFloatArrayRegion(data, (jsize)(plane * q), (jsize)plane, (float*)m.data + m.cstep * q);
    return true;
}

// ---- org.kite.Kite

jstring kite_version(JNIEnv* env, jclass)
{
    return env->NewStringUTF(KITE_VERSION_STRING);
}

// ---- org.kite.Net

jlong net_create(JNIEnv*, jclass)
{
    return (jlong)(intptr_t)(new (std::nothrow) NetHandle());
}

void net_destroy(JNIEnv*, jclass, jlong h)
{
    delete net_of(h);
}

void net_set_option(JNIEnv*, jclass, jlong h, jint threads, jboolean lightmode, jboolean packing, jboolean fp16s,
                    jboolean fp16a, jboolean vulkan, jint vulkan_device, jboolean opencl, jint opencl_device)
{
    kite::Option& opt = net_of(h)->net.opt;
    if (threads > 0)
        opt.num_threads = threads;
    opt.lightmode = lightmode;
    opt.use_packing_layout = packing;
    opt.use_fp16_storage = fp16s;
    opt.use_fp16_arithmetic = fp16a;
    opt.use_vulkan_compute = vulkan;
    opt.vulkan_device = vulkan_device;
    opt.use_opencl = opencl;
    opt.opencl_device = opencl_device;
}

const int kBinaryParamMagic = 7767517; // the first int of a .param.bin

void net_load_param_path(JNIEnv* env, jclass, jlong h, jstring jpath)
{
    if (!check_string(env, jpath, "path"))
        return;
    const std::string path = jstring_to_string(env, jpath);
    kite::clear_last_error();
    FILE* fp = fopen(path.c_str(), "rb");
    if (!fp)
    {
        std::string what = "loadParam: cannot open " + quoted(path) + ": " + strerror(errno);
        env->ThrowNew(g_exception_class, what.c_str());
        return;
    }
    int magic = 0;
    const bool binary = fread(&magic, 4, 1, fp) == 1 && magic == kBinaryParamMagic;
    fclose(fp);
    kite::Net& net = net_of(h)->net;
    if ((binary ? net.load_param_bin(path.c_str()) : net.load_param(path.c_str())) != 0)
        throw_kite(env, "loadParam " + quoted(path));
}

void net_load_param_bytes(JNIEnv* env, jclass, jlong h, jbyteArray data, jint offset, jint length)
{
    std::string bytes((size_t)length, '\0');
    env->GetByteArrayRegion(data, offset, length, (jbyte*)&bytes[0]);
    if (env->ExceptionCheck())
        return;
    kite::clear_last_error();
    kite::Net& net = net_of(h)->net;
    int magic = 0;
    if (bytes.size() >= 4)
        memcpy(&magic, bytes.data(), 4);
    int ret;
    if (magic == kBinaryParamMagic)
    {
        kite::DataReaderFromMemory dr((const unsigned char*)bytes.data(), bytes.size());
        ret = net.load_param_bin(dr);
    }
    else
        ret = net.load_param_mem(bytes.c_str()); // text: NUL-terminated by std::string
    if (ret != 0)
        throw_kite(env, "loadParam (" + std::to_string(length) + " bytes)");
}

void net_load_model_path(JNIEnv* env, jclass, jlong h, jstring jpath)
{
    if (!check_string(env, jpath, "path"))
        return;
    const std::string path = jstring_to_string(env, jpath);
    kite::clear_last_error();
    FILE* fp = fopen(path.c_str(), "rb");
    if (!fp)
    {
        std::string what = "loadModel: cannot open " + quoted(path) + ": " + strerror(errno);
        env->ThrowNew(g_exception_class, what.c_str());
        return;
    }
    fclose(fp);
    if (net_of(h)->net.load_model(path.c_str()) != 0)
        throw_kite(env, "loadModel " + quoted(path));
}

// weights used in place from `mem` (kept alive by the caller)
void load_model_mem(JNIEnv* env, kite::Net& net, const unsigned char* mem, size_t size)
{
    kite::clear_last_error();
    static const unsigned char none[4] = {0, 0, 0, 0};
    kite::DataReaderFromMemory dr(size ? mem : none, size); // a model without weights reads nothing
    if (net.load_model(dr) != 0)
        throw_kite(env, "loadModel (" + std::to_string(size) + " bytes)");
}

void net_load_model_bytes(JNIEnv* env, jclass, jlong h, jbyteArray data)
{
    NetHandle* nh = net_of(h);
    const jsize n = env->GetArrayLength(data);
    std::vector<unsigned char> copy;
    if (n > 0)
    {
        copy.resize((size_t)n);
        env->GetByteArrayRegion(data, 0, n, (jbyte*)copy.data());
        if (env->ExceptionCheck())
            return;
    }
    nh->model.swap(copy);
    load_model_mem(env, nh->net, nh->model.data(), nh->model.size());
}

void net_load_model_buffer(JNIEnv* env, jclass, jlong h, jobject buffer, jint offset, jint length)
{
    NetHandle* nh = net_of(h);
    unsigned char* base = (unsigned char*)env->GetDirectBufferAddress(buffer);
    if (!base)
    {
        env->ThrowNew(g_exception_class, "loadModel: not a direct ByteBuffer");
        return;
    }
    const unsigned char* mem = base + offset;
    if (((uintptr_t)mem & 3) != 0) // weights are read as floats in place: copy an unaligned buffer
    {
        nh->model.assign(mem, mem + length);
        mem = nh->model.data();
    }
    load_model_mem(env, nh->net, mem, (size_t)length);
}

jobjectArray net_blob_names(JNIEnv* env, jclass, jlong h, jboolean inputs)
{
    const kite::Net& net = net_of(h)->net;
    const std::vector<std::string> names = inputs ? net.input_names() : net.output_names();
    jclass string_class = env->FindClass("java/lang/String");
    if (!string_class)
        return nullptr;
    jobjectArray a = env->NewObjectArray((jsize)names.size(), string_class, nullptr);
    if (!a)
        return nullptr;
    for (size_t i = 0; i < names.size(); i++)
    {
        jstring s = env->NewStringUTF(names[i].c_str());
        if (!s)
            return nullptr;
        env->SetObjectArrayElement(a, (jsize)i, s);
        env->DeleteLocalRef(s);
    }
    return a;
}

jlong net_create_extractor(JNIEnv* env, jclass, jlong h)
{
    const kite::Net& net = net_of(h)->net;
    if (!net.model_loaded())
    {
        env->ThrowNew(g_exception_class, "createExtractor: load the param and the model first");
        return 0;
    }
    return (jlong)(intptr_t)(new (std::nothrow) ExtractorHandle(net.create_extractor()));
}

// ---- org.kite.Extractor

void ex_destroy(JNIEnv*, jclass, jlong h)
{
    delete ex_of(h);
}

void ex_set_num_threads(JNIEnv*, jclass, jlong h, jint n)
{
    ex_of(h)->ex.set_num_threads(n);
}

void ex_set_light_mode(JNIEnv*, jclass, jlong h, jboolean on)
{
    ex_of(h)->ex.set_light_mode(on);
}

void ex_input(JNIEnv* env, jclass, jlong h, jstring jname, jfloatArray data, jint dims, jint w, jint hh, jint d, jint c)
{
    if (!check_string(env, jname, "blob name"))
        return;
    kite::Mat m;
    if (!mat_from_java(env, data, dims, w, hh, d, c, m))
        return;
    const std::string name = jstring_to_string(env, jname);
    kite::clear_last_error();
    if (ex_of(h)->ex.input(name.c_str(), m) != 0)
        throw_kite(env, "input " + quoted(name));
}

void ex_input_index(JNIEnv* env, jclass, jlong h, jint index, jfloatArray data, jint dims, jint w, jint hh, jint d, jint c)
{
    kite::Mat m;
    if (!mat_from_java(env, data, dims, w, hh, d, c, m))
        return;
    kite::clear_last_error();
    if (ex_of(h)->ex.input(index, m) != 0)
        throw_kite(env, "input #" + std::to_string(index));
}

jobject ex_extract(JNIEnv* env, jclass, jlong h, jstring jname)
{
    if (!check_string(env, jname, "blob name"))
        return nullptr;
    const std::string name = jstring_to_string(env, jname);
    kite::clear_last_error();
    kite::Mat m;
    if (ex_of(h)->ex.extract(name.c_str(), m) != 0)
    {
        throw_kite(env, "extract " + quoted(name));
        return nullptr;
    }
    return mat_to_java(env, m);
}

jobject ex_extract_index(JNIEnv* env, jclass, jlong h, jint index)
{
    kite::clear_last_error();
    kite::Mat m;
    if (ex_of(h)->ex.extract(index, m) != 0)
    {
        throw_kite(env, "extract #" + std::to_string(index));
        return nullptr;
    }
    return mat_to_java(env, m);
}

// ---- org.kite.Mat

jobject mat_from_argb(JNIEnv* env, jclass, jintArray argb, jint w, jint h, jint stride, jint to, jint tw, jint th)
{
    // 0xAARRGGBB ints -> RGBA bytes, whatever the byte order of the machine
    std::vector<unsigned char> rgba;
    std::vector<jint> row((size_t)w);
    rgba.resize((size_t)w * h * 4);
    for (int y = 0; y < h; y++)
    {
        env->GetIntArrayRegion(argb, y * stride, w, row.data());
        if (env->ExceptionCheck())
            return nullptr;
        unsigned char* p = &rgba[(size_t)y * w * 4];
        for (int x = 0; x < w; x++)
        {
            const uint32_t v = (uint32_t)row[x];
            p[4 * x + 0] = (unsigned char)(v >> 16);
            p[4 * x + 1] = (unsigned char)(v >> 8);
            p[4 * x + 2] = (unsigned char)v;
            p[4 * x + 3] = (unsigned char)(v >> 24);
        }
    }
    const int type = to == kite::Mat::PIXEL_RGBA ? (int)kite::Mat::PIXEL_RGBA : kite::Mat::PIXEL_RGBA | (to << kite::Mat::PIXEL_CONVERT_SHIFT);
    kite::clear_last_error();
    kite::Mat m = tw == w && th == h ? kite::Mat::from_pixels(rgba.data(), type, w, h)
                                     : kite::Mat::from_pixels_resize(rgba.data(), type, w, h, tw, th);
    if (m.empty())
    {
        throw_kite(env, "fromArgb");
        return nullptr;
    }
    return mat_to_java(env, m);
}

jobject mat_from_pixels(JNIEnv* env, jclass, jbyteArray pixels, jint type, jint w, jint h, jint stride, jint tw, jint th)
{
    const jsize n = env->GetArrayLength(pixels);
    std::vector<unsigned char> bytes((size_t)n);
    env->GetByteArrayRegion(pixels, 0, n, (jbyte*)bytes.data());
    if (env->ExceptionCheck())
        return nullptr;
    kite::clear_last_error();
    kite::Mat m = tw == w && th == h ? kite::Mat::from_pixels(bytes.data(), type, w, h, stride)
                                     : kite::Mat::from_pixels_resize(bytes.data(), type, w, h, stride, tw, th);
    if (m.empty())
    {
        throw_kite(env, "fromPixels");
        return nullptr;
    }
    return mat_to_java(env, m);
}

#define KITE_NATIVE(name, sig, fn) {const_cast<char*>(name), const_cast<char*>(sig), reinterpret_cast<void*>(fn)}

bool register_natives(JNIEnv* env, const char* cls, const JNINativeMethod* methods, int n)
{
    jclass c = env->FindClass(cls);
    return c && env->RegisterNatives(c, methods, n) == 0;
}

} // namespace

extern "C" JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void*)
{
    JNIEnv* env = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&env), JNI_VERSION_1_6) != JNI_OK)
        return JNI_ERR;
    jclass mat = env->FindClass("org/kite/Mat");
    jclass exc = env->FindClass("org/kite/KiteException");
    if (!mat || !exc)
        return JNI_ERR;
    g_mat_class = (jclass)env->NewGlobalRef(mat);
    g_exception_class = (jclass)env->NewGlobalRef(exc);
    g_mat_ctor = env->GetMethodID(g_mat_class, "<init>", "([FIIIII)V");
    if (!g_mat_ctor)
        return JNI_ERR;

    static const JNINativeMethod kite_methods[] = {
        KITE_NATIVE("nativeVersion", "()Ljava/lang/String;", kite_version),
    };
    static const JNINativeMethod net_methods[] = {
        KITE_NATIVE("nativeCreate", "()J", net_create),
        KITE_NATIVE("nativeDestroy", "(J)V", net_destroy),
        KITE_NATIVE("nativeSetOption", "(JIZZZZZIZI)V", net_set_option),
        KITE_NATIVE("nativeLoadParamPath", "(JLjava/lang/String;)V", net_load_param_path),
        KITE_NATIVE("nativeLoadParamBytes", "(J[BII)V", net_load_param_bytes),
        KITE_NATIVE("nativeLoadModelPath", "(JLjava/lang/String;)V", net_load_model_path),
        KITE_NATIVE("nativeLoadModelBytes", "(J[B)V", net_load_model_bytes),
        KITE_NATIVE("nativeLoadModelBuffer", "(JLjava/nio/ByteBuffer;II)V", net_load_model_buffer),
        KITE_NATIVE("nativeBlobNames", "(JZ)[Ljava/lang/String;", net_blob_names),
        KITE_NATIVE("nativeCreateExtractor", "(J)J", net_create_extractor),
    };
    static const JNINativeMethod extractor_methods[] = {
        KITE_NATIVE("nativeDestroy", "(J)V", ex_destroy),
        KITE_NATIVE("nativeSetNumThreads", "(JI)V", ex_set_num_threads),
        KITE_NATIVE("nativeSetLightMode", "(JZ)V", ex_set_light_mode),
        KITE_NATIVE("nativeInput", "(JLjava/lang/String;[FIIIII)V", ex_input),
        KITE_NATIVE("nativeInputIndex", "(JI[FIIIII)V", ex_input_index),
        KITE_NATIVE("nativeExtract", "(JLjava/lang/String;)Lorg/kite/Mat;", ex_extract),
        KITE_NATIVE("nativeExtractIndex", "(JI)Lorg/kite/Mat;", ex_extract_index),
    };
    static const JNINativeMethod mat_methods[] = {
        KITE_NATIVE("nativeFromArgb", "([IIIIIII)Lorg/kite/Mat;", mat_from_argb),
        KITE_NATIVE("nativeFromPixels", "([BIIIIII)Lorg/kite/Mat;", mat_from_pixels),
    };
    if (!register_natives(env, "org/kite/Kite", kite_methods, 1)
        || !register_natives(env, "org/kite/Net", net_methods, sizeof(net_methods) / sizeof(net_methods[0]))
        || !register_natives(env, "org/kite/Extractor", extractor_methods, sizeof(extractor_methods) / sizeof(extractor_methods[0]))
        || !register_natives(env, "org/kite/Mat", mat_methods, sizeof(mat_methods) / sizeof(mat_methods[0])))
        return JNI_ERR;
    return JNI_VERSION_1_6;
}
