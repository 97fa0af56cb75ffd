#include "vk_runtime.h"

#include "vk_shaders.h"

#include "../../layer.h"
#include "../../log.h"
#include "../../cpu.h"
#include "../../mat.h"
#include "../../mat_cast.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace kite {
namespace vk {

// ---------------------------------------------------------------- instance

static std::atomic<int> g_validation_errors(0);

int validation_error_count()
{
    return g_validation_errors.load();
}

static VKAPI_ATTR VkBool32 VKAPI_CALL debug_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT, const VkDebugUtilsMessengerCallbackDataEXT* data, void*)
{
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
    {
        g_validation_errors++;
        KITE_LOGE("Vulkan validation: %s", data && data->pMessage ? data->pMessage : "(no message)");
    }
    else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)
        KITE_LOGW("Vulkan validation: %s", data && data->pMessage ? data->pMessage : "(no message)");
    return VK_FALSE;
}

struct Instance
{
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    std::vector<VkPhysicalDevice> gpus;
};

static bool has_layer(const char* name)
{
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> v(n);
    vkEnumerateInstanceLayerProperties(&n, v.data());
    for (const VkLayerProperties& l : v)
        if (strcmp(l.layerName, name) == 0)
            return true;
    return false;
}

static bool has_instance_extension(const char* name)
{
    uint32_t n = 0;
    vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> v(n);
    vkEnumerateInstanceExtensionProperties(nullptr, &n, v.data());
    for (const VkExtensionProperties& e : v)
        if (strcmp(e.extensionName, name) == 0)
            return true;
    return false;
}

// The process-wide instance, created on first use; nullptr (logged once) when
// there is no loader or no instance. Never destroyed: devices and pipelines
// live for the whole process.
static Instance* instance()
{
    static std::once_flag once;
    static Instance* g = nullptr;
    std::call_once(once, [] {
        if (!load_library())
            return;
        const char* v = getenv("KITE_VULKAN_VALIDATION");
        bool validation = v && v[0] && strcmp(v, "0") != 0;
        std::vector<const char*> layers, exts;
        if (validation)
        {
            if (has_layer("VK_LAYER_KHRONOS_validation") && has_instance_extension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME))
            {
                layers.push_back("VK_LAYER_KHRONOS_validation");
                exts.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
            }
            else
            {
                KITE_LOGE("KITE_VULKAN_VALIDATION is set but VK_LAYER_KHRONOS_validation (or VK_EXT_debug_utils) is not installed");
                g_validation_errors++;
            }
        }
        bool portability = has_instance_extension("VK_KHR_portability_enumeration");
        if (portability)
            exts.push_back("VK_KHR_portability_enumeration");
        VkApplicationInfo app = {};
        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
        app.pApplicationName = "kite";
        app.pEngineName = "kite";
        app.apiVersion = VK_API_VERSION_1_1;
        VkInstanceCreateInfo ci = {};
        ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
        ci.flags = portability ? 0x00000001 /* VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR */ : 0;
        ci.pApplicationInfo = &app;
        ci.enabledLayerCount = (uint32_t)layers.size();
        ci.ppEnabledLayerNames = layers.data();
        ci.enabledExtensionCount = (uint32_t)exts.size();
        ci.ppEnabledExtensionNames = exts.data();
        VkInstance inst = VK_NULL_HANDLE;
        VkResult r = vkCreateInstance(&ci, nullptr, &inst);
        if (r != VK_SUCCESS)
        {
            KITE_LOGW("Vulkan: vkCreateInstance failed (%d)", (int)r);
            return;
        }
        if (!load_instance_funcs(inst) || !load_device_funcs(inst))
        {
            KITE_LOGW("Vulkan: the loader lacks Vulkan 1.1 entry points");
            return;
        }
        Instance* in = new Instance;
        in->instance = inst;
        if (!layers.empty() && vkCreateDebugUtilsMessengerEXT)
        {
            VkDebugUtilsMessengerCreateInfoEXT mi = {};
            mi.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
            mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
            mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
            mi.pfnUserCallback = debug_callback;
            vkCreateDebugUtilsMessengerEXT(inst, &mi, nullptr, &in->messenger);
        }
        uint32_t n = 0;
        vkEnumeratePhysicalDevices(inst, &n, nullptr);
        in->gpus.resize(n);
        if (n)
            vkEnumeratePhysicalDevices(inst, &n, in->gpus.data());
        g = in;
    });
    return g;
}

// ---------------------------------------------------------------- device

// KITE_VULKAN_TIMING=1: where start-up time goes (printed when the constants are flushed)
static bool timing_on()
{
    static const bool on = getenv("KITE_VULKAN_TIMING") && atoi(getenv("KITE_VULKAN_TIMING")) != 0;
    return on;
}

static double ms_since(const std::chrono::steady_clock::time_point& t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}


VulkanDevice* VulkanDevice::get(int index)
{
    static std::mutex lock;
    static std::map<int, VulkanDevice*> devices; // never destroyed (see instance())
    static std::map<int, bool> failed;
    std::lock_guard<std::mutex> g(lock);
    auto it = devices.find(index);
    if (it != devices.end())
        return it->second;
    if (failed[index])
        return nullptr;
    failed[index] = true;
    // KITE_VULKAN_TIMING's "device init": the instance (first device only) and the device
    const auto t0 = std::chrono::steady_clock::now();
    Instance* in = instance();
    if (!in)
        return nullptr;
    if (index < 0 || index >= (int)in->gpus.size())
    {
        KITE_LOGW("Vulkan: no device %d (this machine has %d)", index, (int)in->gpus.size());
        return nullptr;
    }
    VulkanDevice* d = new VulkanDevice;
    if (!d->init(in->gpus[index], index))
    {
        delete d;
        return nullptr;
    }
    d->init_ms = ms_since(t0);
    failed[index] = false;
    devices[index] = d;
    return d;
}

static int find_memory_type(const VkPhysicalDeviceMemoryProperties& mp, VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((mp.memoryTypes[i].propertyFlags & want) == want)
            return (int)i;
    return -1;
}

bool VulkanDevice::init(VkPhysicalDevice pd, int idx)
{
    physical = pd;
    index = idx;
    vkGetPhysicalDeviceProperties(pd, &props);
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> qf(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qf.data());
    int family = -1;
    for (uint32_t i = 0; i < nq; i++)
    {
        // prefer a compute queue without graphics (async compute) when there is one
        if ((qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && (family < 0 || !(qf[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)))
            family = (int)i;
    }
    if (family < 0)
    {
        KITE_LOGW("Vulkan: device %d (%s) has no compute queue", idx, props.deviceName);
        return false;
    }
    queue_family = (uint32_t)family;

    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    int dl = find_memory_type(mp, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    int hv = find_memory_type(mp, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
    if (hv < 0)
        hv = find_memory_type(mp, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (dl < 0 || hv < 0)
    {
        KITE_LOGW("Vulkan: device %d (%s) lacks device-local or host-coherent memory", idx, props.deviceName);
        return false;
    }
    mem_device_local = (uint32_t)dl;
    mem_host_visible = (uint32_t)hv;
    // unified memory (lavapipe, integrated GPUs): constants are written in place
    const VkMemoryPropertyFlags mapped_flags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    constants_direct = (mp.memoryTypes[dl].propertyFlags & mapped_flags) == mapped_flags;
    const char* cenv = getenv("KITE_VULKAN_CONSTANTS");
    if (cenv && strcmp(cenv, "staged") == 0)
        constants_direct = false;

    uint32_t ne = 0;
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &ne, nullptr);
    std::vector<VkExtensionProperties> ext(ne);
    vkEnumerateDeviceExtensionProperties(pd, nullptr, &ne, ext.data());
    std::vector<const char*> enable;
    bool has_f16_ext = false, has_dot_ext = false;
    for (const VkExtensionProperties& e : ext)
    {
        if (strcmp(e.extensionName, "VK_KHR_shader_integer_dot_product") == 0)
            has_dot_ext = true;
        if (strcmp(e.extensionName, "VK_KHR_portability_subset") == 0)
            enable.push_back("VK_KHR_portability_subset"); // required where present (MoltenVK)
        if (strcmp(e.extensionName, "VK_KHR_shader_float16_int8") == 0)
            has_f16_ext = true;
    }

    // fp16 storage (core 1.1 feature) and fp16 arithmetic (VK_KHR_shader_float16_int8)
    VkPhysicalDevice16BitStorageFeatures f16s = {};
    f16s.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    VkPhysicalDeviceShaderFloat16Int8Features f16a = {};
    f16a.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    VkPhysicalDeviceFeatures2 feat = {};
    feat.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    feat.pNext = &f16s;
    if (has_f16_ext)
        f16s.pNext = &f16a;
    // the packed int8 dot product of the int8 shaders' _dot4 variants
    // (VK_KHR_shader_integer_dot_product, core in Vulkan 1.3; kite's instance
    // is 1.1, so through the extension)
    VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR dotf = {};
    dotf.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR;
    if (has_dot_ext)
    {
        dotf.pNext = feat.pNext;
        feat.pNext = &dotf;
    }
    vkGetPhysicalDeviceFeatures2(pd, &feat);
    int8_dot = has_dot_ext && dotf.shaderIntegerDotProduct == VK_TRUE;
    if (int8_dot)
    {
        VkPhysicalDeviceShaderIntegerDotProductPropertiesKHR dotp = {};
        dotp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES_KHR;
        VkPhysicalDeviceProperties2 p2 = {};
        p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        p2.pNext = &dotp;
        vkGetPhysicalDeviceProperties2(pd, &p2);
        int8_dot_accelerated = dotp.integerDotProduct4x8BitPackedSignedAccelerated == VK_TRUE;
    }
    const char* no16 = getenv("KITE_VULKAN_NO_FP16"); // for tests: behave like a device without fp16
    fp16_storage = f16s.storageBuffer16BitAccess == VK_TRUE && !(no16 && no16[0] && strcmp(no16, "0") != 0);
    fp16_arithmetic = fp16_storage && has_f16_ext && f16a.shaderFloat16 == VK_TRUE;
    // enable exactly what is used
    VkPhysicalDevice16BitStorageFeatures en16s = {};
    en16s.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    en16s.storageBuffer16BitAccess = fp16_storage ? VK_TRUE : VK_FALSE;
    VkPhysicalDeviceShaderFloat16Int8Features en16a = {};
    en16a.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    en16a.shaderFloat16 = fp16_arithmetic ? VK_TRUE : VK_FALSE;
    VkPhysicalDeviceFeatures2 enfeat = {};
    enfeat.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    enfeat.pNext = &en16s;
    if (fp16_arithmetic)
    {
        en16s.pNext = &en16a;
        enable.push_back("VK_KHR_shader_float16_int8");
    }
    VkPhysicalDeviceShaderIntegerDotProductFeaturesKHR endot = {};
    endot.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES_KHR;
    endot.shaderIntegerDotProduct = VK_TRUE;
    if (int8_dot)
    {
        endot.pNext = enfeat.pNext;
        enfeat.pNext = &endot;
        enable.push_back("VK_KHR_shader_integer_dot_product");
    }

    float prio = 1.f;
    VkDeviceQueueCreateInfo qi = {};
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qi.queueFamilyIndex = queue_family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &prio;
    VkDeviceCreateInfo di = {};
    di.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    di.pNext = &enfeat;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &qi;
    di.enabledExtensionCount = (uint32_t)enable.size();
    di.ppEnabledExtensionNames = enable.data();
    VkResult r = vkCreateDevice(pd, &di, nullptr, &device);
    if (r != VK_SUCCESS)
    {
        KITE_LOGW("Vulkan: vkCreateDevice failed for device %d (%s): %d", idx, props.deviceName, (int)r);
        return false;
    }
    vkGetDeviceQueue(device, queue_family, 0, &queue);

    blob_pool = std::make_shared<BufferPool>(this, false, nullptr);
    staging_pool = std::make_shared<BufferPool>(this, true, nullptr);

    // the pipeline cache: whatever an earlier run left on disk for this device+driver
    std::vector<char> data;
    std::string path = cache_path();
    if (!path.empty())
    {
        FILE* f = fopen(path.c_str(), "rb");
        if (f)
        {
            char buf[65536];
            size_t n;
            while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
                data.insert(data.end(), buf, buf + n);
            fclose(f);
        }
    }
    VkPipelineCacheCreateInfo pci = {};
    pci.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
    pci.initialDataSize = data.size();
    pci.pInitialData = data.empty() ? nullptr : data.data();
    if (vkCreatePipelineCache(device, &pci, nullptr, &pipeline_cache) == VK_SUCCESS)
    {
        cache_saved_bytes = data.size();
    }
    else
    {
        // a stale or foreign file: start empty
        pci.initialDataSize = 0;
        pci.pInitialData = nullptr;
        if (vkCreatePipelineCache(device, &pci, nullptr, &pipeline_cache) != VK_SUCCESS)
            pipeline_cache = VK_NULL_HANDLE;
    }
    return true;
}

VulkanDevice::~VulkanDevice()
{
    // devices live for the whole process; this only runs when init() failed
    if (device)
        vkDestroyDevice(device, nullptr);
}

// <dir>/vk_<vendor>_<device>_<driver>_<cache uuid>_<shader hash>.bin, where dir
// is KITE_VULKAN_CACHE_DIR, else $XDG_CACHE_HOME/kite or $HOME/.cache/kite;
// KITE_VULKAN_CACHE_DIR=off disables the disk cache.
std::string VulkanDevice::cache_path() const
{
    std::string dir;
    const char* env = getenv("KITE_VULKAN_CACHE_DIR");
    if (env && strcmp(env, "off") == 0)
        return "";
    if (env && env[0])
        dir = env;
    else if (getenv("XDG_CACHE_HOME") && getenv("XDG_CACHE_HOME")[0])
        dir = std::string(getenv("XDG_CACHE_HOME")) + "/kite";
    else if (getenv("HOME") && getenv("HOME")[0])
        dir = std::string(getenv("HOME")) + "/.cache/kite";
    else
        return "";
    char name[160];
    std::string uuid;
    for (uint32_t i = 0; i < VK_UUID_SIZE; i++)
    {
        char h[3];
        snprintf(h, sizeof(h), "%02x", props.pipelineCacheUUID[i]);
        uuid += h;
    }
    snprintf(name, sizeof(name), "/vk_%04x_%04x_%08x_%s_%016llx.bin", props.vendorID, props.deviceID, props.driverVersion,
             uuid.c_str(), (unsigned long long)shaders_hash());
    return dir + name;
}

static void make_dirs(const std::string& path)
{
    for (size_t i = 1; i < path.size(); i++)
        if (path[i] == '/')
            mkdir(path.substr(0, i).c_str(), 0755);
}

void VulkanDevice::save_pipeline_cache()
{
    std::lock_guard<std::mutex> g(pipeline_lock);
    if (!cache_dirty || !pipeline_cache)
        return;
    cache_dirty = false;
    std::string path = cache_path();
    if (path.empty())
        return;
    size_t n = 0;
    if (vkGetPipelineCacheData(device, pipeline_cache, &n, nullptr) != VK_SUCCESS || n == 0)
        return;
    // nothing new (every pipeline came from the loaded cache): no write
    if (n == cache_saved_bytes)
        return;
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<char> data(n);
    if (vkGetPipelineCacheData(device, pipeline_cache, &n, data.data()) != VK_SUCCESS)
        return;
    cache_saved_bytes = n;
    make_dirs(path);
    std::string tmp = path + ".tmp" + std::to_string((long)getpid());
    FILE* f = fopen(tmp.c_str(), "wb");
    if (!f)
        return; // a read-only cache folder only costs start-up time
    bool ok = fwrite(data.data(), 1, n, f) == n;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp.c_str(), path.c_str()) != 0)
        remove(tmp.c_str());
    cache_save_ms += ms_since(t0);
}

int VulkanDevice::pipeline_count()
{
    std::lock_guard<std::mutex> g(pipeline_lock);
    return (int)pipelines.size();
}

int VulkanDevice::variant(const Option& opt) const
{
    if (!opt.use_fp16_storage || !fp16_storage)
        return VARIANT_FP32;
    return opt.use_fp16_arithmetic && fp16_arithmetic ? VARIANT_FP16A : VARIANT_FP16S;
}

bool VulkanDevice::use_int8_dot() const
{
    const char* e = getenv("KITE_VULKAN_INT8_DOT");
    if (e && strcmp(e, "0") == 0)
        return false;
    if (e && strcmp(e, "1") == 0)
        return int8_dot;
    // lavapipe calls its dot product not accelerated, but LLVM's code for it
    // beat the portable shaders there (squeezenet_int8 227x227: 1.07 s of CPU
    // against 1.70 s, resnet18_int8 112x112: 0.35 s against 0.62 s)
    return int8_dot && (int8_dot_accelerated || props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU);
}

const Pipeline* VulkanDevice::pipeline(const char* shader, int bindings, uint32_t lx, uint32_t ly, uint32_t lz, int variant)
{
    std::string key = std::string(shader) + "/" + std::to_string(variant) + "/" + std::to_string(bindings) + "/" + std::to_string(lx) + "x" + std::to_string(ly) + "x" + std::to_string(lz);
    std::lock_guard<std::mutex> g(pipeline_lock);
    auto it = pipelines.find(key);
    if (it != pipelines.end())
        return it->second;
    size_t bytes = 0;
    const uint32_t* code = embedded_spirv(shader, variant, &bytes);
    if (!code)
    {
        KITE_LOGE("Vulkan: no shader '%s' (variant %d) in this build", shader, variant);
        return nullptr;
    }
    const auto t0 = std::chrono::steady_clock::now();
    Pipeline* p = new Pipeline;
    p->variant = variant;
    p->shader = shader;
    p->bindings = bindings;
    p->local[0] = lx;
    p->local[1] = ly;
    p->local[2] = lz;
    VkShaderModuleCreateInfo smi = {};
    smi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    smi.codeSize = bytes;
    smi.pCode = code;
    std::vector<VkDescriptorSetLayoutBinding> b(bindings);
    for (int i = 0; i < bindings; i++)
    {
        b[i] = {};
        b[i].binding = (uint32_t)i;
        b[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        b[i].descriptorCount = 1;
        b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo dli = {};
    dli.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    dli.bindingCount = (uint32_t)bindings;
    dli.pBindings = b.data();
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, MAX_PUSH_BYTES};
    VkPipelineLayoutCreateInfo pli = {};
    pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pli.setLayoutCount = 1;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &pcr;
    VkSpecializationMapEntry me[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
    VkSpecializationInfo si = {3, me, sizeof(p->local), p->local};
    VkComputePipelineCreateInfo cpi = {};
    cpi.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpi.stage.pName = "main";
    cpi.stage.pSpecializationInfo = &si;
    bool ok = vkCreateShaderModule(device, &smi, nullptr, &p->module) == VK_SUCCESS
              && vkCreateDescriptorSetLayout(device, &dli, nullptr, &p->set_layout) == VK_SUCCESS;
    if (ok)
    {
        pli.pSetLayouts = &p->set_layout;
        ok = vkCreatePipelineLayout(device, &pli, nullptr, &p->layout) == VK_SUCCESS;
    }
    if (ok)
    {
        cpi.stage.module = p->module;
        cpi.layout = p->layout;
        ok = vkCreateComputePipelines(device, pipeline_cache, 1, &cpi, nullptr, &p->pipeline) == VK_SUCCESS;
    }
    if (!ok)
    {
        KITE_LOGE("Vulkan: could not create the pipeline of shader '%s'", shader);
        if (p->pipeline)
            vkDestroyPipeline(device, p->pipeline, nullptr);
        if (p->layout)
            vkDestroyPipelineLayout(device, p->layout, nullptr);
        if (p->set_layout)
            vkDestroyDescriptorSetLayout(device, p->set_layout, nullptr);
        if (p->module)
            vkDestroyShaderModule(device, p->module, nullptr);
        delete p;
        return nullptr;
    }
    cache_dirty = true;
    pipelines[key] = p;
    pipelines_made++;
    pipelines_ms += ms_since(t0);
    return p;
}

bool VulkanDevice::create_buffer(VkDeviceSize size, bool host_visible, Buffer& out)
{
    out = Buffer();
    VkBufferCreateInfo bi = {};
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = size;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (vkCreateBuffer(device, &bi, nullptr, &out.buffer) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: vkCreateBuffer of %llu bytes failed", (unsigned long long)size);
        return false;
    }
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, out.buffer, &req);
    uint32_t type = host_visible ? mem_host_visible : mem_device_local;
    if (!(req.memoryTypeBits & (1u << type)))
    {
        // pick any type the buffer allows with the properties wanted
        VkPhysicalDeviceMemoryProperties mp;
        vkGetPhysicalDeviceMemoryProperties(physical, &mp);
        VkMemoryPropertyFlags want = host_visible ? (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        type = ~0u;
        for (uint32_t i = 0; i < mp.memoryTypeCount && type == ~0u; i++)
            if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want)
                type = i;
        if (type == ~0u)
        {
            KITE_LOGE("Vulkan: no memory type for a buffer");
            vkDestroyBuffer(device, out.buffer, nullptr);
            out.buffer = VK_NULL_HANDLE;
            return false;
        }
    }
    VkMemoryAllocateInfo ai = {};
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    if (vkAllocateMemory(device, &ai, nullptr, &out.memory) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: out of device memory (%llu bytes)", (unsigned long long)req.size);
        vkDestroyBuffer(device, out.buffer, nullptr);
        out.buffer = VK_NULL_HANDLE;
        return false;
    }
    vkBindBufferMemory(device, out.buffer, out.memory, 0);
    if (host_visible && vkMapMemory(device, out.memory, 0, VK_WHOLE_SIZE, 0, &out.mapped) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: vkMapMemory failed");
        destroy_buffer(out);
        return false;
    }
    out.size = size;
    return true;
}

void VulkanDevice::destroy_buffer(Buffer& b)
{
    if (b.mapped)
        vkUnmapMemory(device, b.memory);
    if (b.buffer)
        vkDestroyBuffer(device, b.buffer, nullptr);
    if (b.memory)
        vkFreeMemory(device, b.memory, nullptr);
    b = Buffer();
}

// ---------------------------------------------------------------- constants

// One device-local allocation that constants' buffers are bound into; freed
// with the last of them.
struct ConstantChunk
{
    VulkanDevice* dev = nullptr;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0, used = 0;
    unsigned char* mapped = nullptr; // host-visible device memory (direct fills)
    ~ConstantChunk()
    {
        if (mapped)
            vkUnmapMemory(dev->device, memory);
        if (memory)
            vkFreeMemory(dev->device, memory, nullptr);
    }
};

enum : size_t
{
    CHUNK_MIN = (size_t)16 << 20,     // first constant chunk; each next one twice the last
    CHUNK_MAX = (size_t)256 << 20,    // up to this (larger tensors get their own)
    STAGING_POOLED = (size_t)1 << 20  // smaller staging buffers come from (and go back to) the pool
};

bool VulkanDevice::bind_constant(size_t bytes, VkBlob& b)
{
    VkBufferCreateInfo bi = {};
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = bytes;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    if (vkCreateBuffer(device, &bi, nullptr, &b.buf.buffer) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: vkCreateBuffer of %zu bytes failed", bytes);
        return false;
    }
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b.buf.buffer, &req);
    const VkDeviceSize align = req.alignment ? req.alignment : 1;
    std::shared_ptr<ConstantChunk> c = chunk_current.lock();
    VkDeviceSize offset = c ? (c->used + align - 1) / align * align : 0;
    if (!c || offset + req.size > c->size)
    {
        if (!(req.memoryTypeBits & (1u << mem_device_local)))
        {
            KITE_LOGE("Vulkan: constant buffers cannot use the device-local memory type %u", mem_device_local);
            vkDestroyBuffer(device, b.buf.buffer, nullptr);
            b.buf.buffer = VK_NULL_HANDLE;
            return false;
        }
        if (!c)
            chunk_next = CHUNK_MIN; // the previous chunks went with their nets: start small again
        const auto t0 = std::chrono::steady_clock::now();
        c = std::make_shared<ConstantChunk>();
        c->dev = this;
        c->size = req.size > chunk_next ? req.size : chunk_next;
        VkMemoryAllocateInfo ai = {};
        ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
        ai.allocationSize = c->size;
        ai.memoryTypeIndex = mem_device_local;
        if (vkAllocateMemory(device, &ai, nullptr, &c->memory) != VK_SUCCESS)
        {
            KITE_LOGE("Vulkan: out of device memory for constants (%llu bytes)", (unsigned long long)c->size);
            c->memory = VK_NULL_HANDLE;
            vkDestroyBuffer(device, b.buf.buffer, nullptr);
            b.buf.buffer = VK_NULL_HANDLE;
            return false;
        }
        void* p = nullptr;
        if (constants_direct && vkMapMemory(device, c->memory, 0, VK_WHOLE_SIZE, 0, &p) == VK_SUCCESS)
            c->mapped = (unsigned char*)p;
        else if (constants_direct)
            constants_direct = false; // stage instead (only chunks mapped from the start are written directly)
        if (c->size == chunk_next)
            chunk_next = chunk_next * 2 > CHUNK_MAX ? CHUNK_MAX : chunk_next * 2;
        chunk_current = c;
        offset = 0;
        ct.chunks++;
        ct.alloc_ms += ms_since(t0);
    }
    if (vkBindBufferMemory(device, b.buf.buffer, c->memory, offset) != VK_SUCCESS)
    {
        KITE_LOGE("Vulkan: vkBindBufferMemory failed");
        vkDestroyBuffer(device, b.buf.buffer, nullptr);
        b.buf.buffer = VK_NULL_HANDLE;
        return false;
    }
    c->used = offset + req.size;
    b.buf.size = bytes;
    b.buf.mapped = c->mapped ? c->mapped + offset : nullptr;
    b.chunk = c;
    return true;
}

int VulkanDevice::fill_parts(size_t bytes)
{
    // KITE_VULKAN_FILL_PART_BYTES: smaller parts (tests split small tensors)
    const char* e = getenv("KITE_VULKAN_FILL_PART_BYTES");
    const long long unit = e && atoll(e) > 0 ? atoll(e) : 1 << 20;
    const size_t parts = bytes / (size_t)unit;
    return parts < 1 ? 1 : parts > 4096 ? 4096 : (int)parts;
}

int VulkanDevice::load_threads()
{
    static const int n = [] {
        const char* e = getenv("KITE_VULKAN_LOAD_THREADS");
        int v = e ? atoi(e) : 0;
        if (v <= 0)
            v = get_physical_big_cpu_count();
        if (v <= 0)
            v = get_cpu_count();
        return v < 1 ? 1 : v;
    }();
    return n;
}

VkBlobPtr VulkanDevice::upload_constant(const Mat& shape, bool half, ConstantFill fill, int parts)
{
    const auto t0 = std::chrono::steady_clock::now();
    const size_t n = (size_t)shape.w * shape.h * shape.d * shape.c;
    const size_t bytes = n * (half ? 2 : 4);
    VkBlobPtr b = std::make_shared<VkBlob>();
    b->backend = BACKEND_VULKAN;
    b->shape = gpu_shape_of(shape);
    b->shape.elempack = 1;
    b->shape.elemsize = half ? 2 : 4;
    b->shape.cstep = (size_t)shape.w * shape.h * shape.d;
    std::lock_guard<std::mutex> g(constants_lock);
    if (!bind_constant(bytes < 16 ? 16 : bytes, *b))
        return nullptr;
    // the values are written at the flush (no staging is held before it: the
    // pending fills keep only what they read, e.g. the layer's weights)
    constants.push_back(PendingConstant{b, std::move(fill), bytes, parts < 1 ? 1 : parts});
    ct.count++;
    ct.bytes += bytes;
    ct.record_ms += ms_since(t0);
    return b;
}

VkBlobPtr VulkanDevice::upload_constant(const Mat& shape, const Mat& src, bool half)
{
    const size_t n = (size_t)shape.w * shape.h * shape.d * shape.c;
    if (src.elemsize != 4u || src.elempack != 1 || (size_t)src.w * src.h * src.d * src.c != n || (src.dims >= 3 && src.cstep != (size_t)src.w * src.h * src.d))
    {
        KITE_LOGE("Vulkan: a constant must be %zu contiguous fp32 values (got elemsize %zu, elempack %d)", n, src.elemsize, src.elempack);
        return nullptr;
    }
    // the values stay referenced until the fill has run; a Mat over external
    // memory (a caller's temporary, a mapped model file) is copied now
    Mat keep = src.refcount ? src : src.clone();
    if (keep.empty())
        return nullptr;
    const float* p = (const float*)keep.data;
    const int parts = fill_parts(n * (half ? 2 : 4));
    // part k: scalars [n k / parts, n (k + 1) / parts)
    return upload_constant(shape, half, [keep, p, n, half](void* dst, int k, int parts) {
        const size_t i0 = n * k / parts, i1 = n * (k + 1) / parts;
        if (half)
            float32_to_float16_n(p + i0, (unsigned short*)dst + i0, i1 - i0);
        else
            memcpy((float*)dst + i0, p + i0, (i1 - i0) * 4);
    }, parts);
}

VkBlobPtr VulkanDevice::upload_constant(const Mat& shape, const float* data)
{
    const size_t n = (size_t)shape.w * shape.h * shape.d * shape.c;
    return upload_constant(shape, Mat((int)n, (void*)data), false); // copied there
}

// items [first, last) of `items`: their parts in parallel (load_threads()),
// into the constants' own mapped memory, or into `staging` (16-byte aligned
// each, large enough for the batch) copied to the device in one submit
int VulkanDevice::flush_batch(std::vector<PendingConstant>& items, size_t first, size_t last, Buffer* staging)
{
    // the blobs stay alive until their copies are done
    const int count = (int)(last - first);
    std::vector<VkBlobPtr> live(count);
    std::vector<size_t> offset(count + 1, 0);
    std::vector<std::pair<int, int> > work; // (item, part)
    for (int i = 0; i < count; i++)
    {
        const PendingConstant& it = items[first + i];
        live[i] = it.blob.lock();
        offset[i + 1] = offset[i] + ((it.bytes + 15) & ~(size_t)15);
        if (live[i] && it.bytes)
            for (int k = 0; k < it.parts; k++)
                work.push_back(std::make_pair(i, k));
    }
    const int nt = load_threads();
    const int nw = (int)work.size();
    const auto t0 = std::chrono::steady_clock::now();
    #pragma omp parallel for schedule(dynamic) num_threads(nt) if (nt > 1 && nw > 1)
    for (int w = 0; w < nw; w++)
    {
        const int i = work[w].first;
        unsigned char* dst = staging ? (unsigned char*)staging->mapped + offset[i] : (unsigned char*)live[i]->buf.mapped;
        items[first + i].fill(dst, work[w].second, items[first + i].parts);
    }
    ct.fill_ms += ms_since(t0);
    ct.threads = nt;
    if (!staging)
        return 0;
    const auto t1 = std::chrono::steady_clock::now();
    int ret = -1;
    if (!upload_cmd)
    {
        VkCommandPoolCreateInfo pi = {};
        pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
        pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        pi.queueFamilyIndex = queue_family;
        VkFenceCreateInfo fi = {};
        fi.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
        VkCommandBufferAllocateInfo ai = {};
        ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        if ((upload_pool || vkCreateCommandPool(device, &pi, nullptr, &upload_pool) == VK_SUCCESS)
            && (upload_fence || vkCreateFence(device, &fi, nullptr, &upload_fence) == VK_SUCCESS))
        {
            ai.commandPool = upload_pool;
            if (vkAllocateCommandBuffers(device, &ai, &upload_cmd) != VK_SUCCESS)
                upload_cmd = VK_NULL_HANDLE;
        }
    }
    VkCommandBufferBeginInfo bi = {};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    if (upload_cmd && vkBeginCommandBuffer(upload_cmd, &bi) == VK_SUCCESS)
    {
        for (int i = 0; i < count; i++)
        {
            if (!live[i])
                continue;
            VkBufferCopy r = {offset[i], 0, items[first + i].bytes};
            if (r.size)
                vkCmdCopyBuffer(upload_cmd, staging->buffer, live[i]->buf.buffer, 1, &r);
        }
        // the copies are done before any later compute or transfer reads
        VkMemoryBarrier mb = {};
        mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        vkCmdPipelineBarrier(upload_cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                             0, 1, &mb, 0, nullptr, 0, nullptr);
        if (vkEndCommandBuffer(upload_cmd) == VK_SUCCESS)
        {
            VkSubmitInfo si = {};
            si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
            si.commandBufferCount = 1;
            si.pCommandBuffers = &upload_cmd;
            VkResult r;
            {
                std::lock_guard<std::mutex> g(queue_lock);
                r = vkQueueSubmit(queue, 1, &si, upload_fence);
            }
            if (r == VK_SUCCESS)
                r = vkWaitForFences(device, 1, &upload_fence, VK_TRUE, UINT64_MAX);
            vkResetFences(device, 1, &upload_fence);
            ret = r == VK_SUCCESS ? 0 : -1;
            if (ret != 0)
                KITE_LOGE("Vulkan: constant upload failed (%d)%s", (int)r, r == VK_ERROR_DEVICE_LOST ? ": device lost" : "");
        }
        vkResetCommandBuffer(upload_cmd, 0);
    }
    else
        KITE_LOGE("Vulkan: no command buffer for constant uploads");
    ct.submit_ms += ms_since(t1);
    ct.batches++;
    return ret;
}

int VulkanDevice::flush_constants()
{
    std::lock_guard<std::mutex> g(constants_lock);
    if (constants.empty())
        return 0;
    std::vector<PendingConstant> items;
    items.swap(constants);
    // batches of at most staging_batch bytes (a larger constant alone), all
    // through one staging buffer (its pages touched once) when staged
    std::vector<size_t> ends;
    size_t bytes = 0, largest = 0;
    for (size_t i = 0; i < items.size(); i++)
    {
        const size_t b = (items[i].bytes + 15) & ~(size_t)15;
        if (bytes > 0 && bytes + b > staging_batch)
        {
            ends.push_back(i);
            largest = bytes > largest ? bytes : largest;
            bytes = 0;
        }
        bytes += b;
    }
    ends.push_back(items.size());
    largest = bytes > largest ? bytes : largest;
    int ret = 0;
    Buffer st;
    bool pooled = false;
    if (!constants_direct)
    {
        const auto t0 = std::chrono::steady_clock::now();
        const size_t sb = largest < 16 ? 16 : largest;
        pooled = sb <= STAGING_POOLED;
        if (!(pooled ? staging_pool->acquire(sb, st) : create_buffer(sb, true, st)))
            ret = -100;
        ct.staging_ms += ms_since(t0);
    }
    size_t first = 0;
    for (size_t e = 0; e < ends.size() && ret == 0; e++)
    {
        ret = flush_batch(items, first, ends[e], constants_direct ? nullptr : &st);
        first = ends[e];
    }
    if (!constants_direct && st.buffer)
    {
        if (pooled)
            staging_pool->release(st);
        else
            destroy_buffer(st);
    }
    if (timing_on())
    {
        std::lock_guard<std::mutex> pg(pipeline_lock);
        fprintf(stderr, "Vulkan timing: device init %.1f ms; %d pipelines made in %.1f ms; %d constants (%.1f MB) recorded in %.1f ms "
                        "(%d device allocations %.1f ms), %s, filled in %.1f ms on %d threads, %d copy submits %.1f ms; pipeline cache written in %.1f ms\n",
                init_ms, pipelines_made, pipelines_ms, ct.count, ct.bytes / 1048576.0, ct.record_ms, ct.chunks, ct.alloc_ms,
                constants_direct ? "written into host-visible device memory" : "staged", ct.fill_ms, ct.threads, ct.batches,
                ct.submit_ms + ct.staging_ms, cache_save_ms);
    }
    ct = {};
    return ret;
}

// ---------------------------------------------------------------- pools

BufferPool::BufferPool(VulkanDevice* d, bool hv, std::shared_ptr<BufferPool> p)
    : dev(d), host_visible(hv), parent(std::move(p))
{
}

BufferPool::~BufferPool()
{
    for (auto& kv : idle)
    {
        if (parent)
            parent->release(kv.second);
        else
            dev->destroy_buffer(kv.second);
    }
}

bool BufferPool::acquire(VkDeviceSize size, Buffer& out)
{
    size = (size + 255) & ~(VkDeviceSize)255;
    {
        std::lock_guard<std::mutex> g(lock);
        // the smallest idle buffer that fits and wastes at most half of itself
        auto it = idle.lower_bound(size);
        if (it != idle.end() && it->first <= size * 2)
        {
            out = it->second;
            idle.erase(it);
            return true;
        }
    }
    if (parent)
        return parent->acquire(size, out);
    return dev->create_buffer(size, host_visible, out);
}

void BufferPool::release(const Buffer& b)
{
    if (!b.buffer)
        return;
    std::lock_guard<std::mutex> g(lock);
    idle.emplace(b.size, b);
}

VkBlob::~VkBlob()
{
    if (pool)
        pool->release(buf);
    else if (chunk && buf.buffer)
        vkDestroyBuffer(chunk->dev->device, buf.buffer, nullptr);
}

} // namespace vk
} // namespace kite
