package org.kite;

/**
 * Settings of a {@link Net}, given to its constructor (layer implementations
 * are chosen from them when the param is loaded). The defaults are kite's.
 */
public final class Option {
    /** CPU threads for each layer (default: the number of big cores). */
    public int numThreads = 0;
    /** Release intermediate blobs as soon as they are consumed (default true). */
    public boolean lightMode = true;
    /** Let layers use the packed layouts (elempack 4/8) (default true). */
    public boolean usePackingLayout = true;
    /** Store blobs as fp16 where layers support it (default false). */
    public boolean useFp16Storage = false;
    /** Compute in fp16 where the CPU/GPU can (default false). */
    public boolean useFp16Arithmetic = false;
    /** Run on a Vulkan GPU when kite was built with it (default false). */
    public boolean useVulkanCompute = false;
    /** Index of the Vulkan physical device. */
    public int vulkanDevice = 0;
    /** Run on an OpenCL GPU when kite was built with it (default false). */
    public boolean useOpenCL = false;
    /** Index of the OpenCL device (GPUs first). */
    public int openclDevice = 0;

    public Option() {}

    public Option setNumThreads(int n) {
        numThreads = n;
        return this;
    }

    public Option setLightMode(boolean on) {
        lightMode = on;
        return this;
    }

    public Option setUsePackingLayout(boolean on) {
        usePackingLayout = on;
        return this;
    }

    public Option setUseFp16Storage(boolean on) {
        useFp16Storage = on;
        return this;
    }

    public Option setUseFp16Arithmetic(boolean on) {
        useFp16Arithmetic = on;
        return this;
    }

    public Option setUseVulkanCompute(boolean on, int device) {
        useVulkanCompute = on;
        vulkanDevice = device;
        return this;
    }

    public Option setUseOpenCL(boolean on, int device) {
        useOpenCL = on;
        openclDevice = device;
        return this;
    }
}
