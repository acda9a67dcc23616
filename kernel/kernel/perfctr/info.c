// SPDX-License-Identifier: GPL-2.0
/*
 * struct perfctr_info for user space: /sys/kernel/perfctr/, one value per
 * file.  It describes the counter driver chosen at boot and never changes.
 */
#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/minmax.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

static u32 perfctr_tsc_to_cpu_mult(void)
{
	const struct perfctr_pmu *desc = perfctr_driver(pmu)();

	if (!desc->tsc_khz || desc->cpu_khz <= desc->tsc_khz)
		return 1;
	return desc->cpu_khz / desc->tsc_khz;
}

/**
 * perfctr_get_info - describe this machine's counters
 * @info: filled in completely, reserved fields zero
 */
void perfctr_get_info(struct perfctr_info *info)
{
	const struct perfctr_pmu *desc = perfctr_driver(pmu)();

	memset(info, 0, sizeof(*info));
	info->abi_version = PERFCTR_ABI_VERSION;
	strscpy(info->driver_version, PERFCTR_DRIVER_VERSION,
		sizeof(info->driver_version));
	info->cpu_type = desc->cpu_type;
	info->cpu_features = desc->features;
	info->cpu_khz = desc->cpu_khz;
	info->tsc_to_cpu_mult = perfctr_tsc_to_cpu_mult();
	info->nrctrs = desc->nrctrs;
	info->ctr_width = desc->ctr_width;
	info->nrfixed = desc->nrfixed;
	info->fixed_width = desc->fixed_width;
	info->nrmetrics = desc->nrmetrics;
}

/* One u32 field of struct perfctr_info, in decimal or hexadecimal. */
static ssize_t perfctr_info_emit(char *buf, size_t offset, bool hex)
{
	struct perfctr_info info;
	u32 value;

	perfctr_get_info(&info);
	memcpy(&value, (char *)&info + offset, sizeof(value));
	return sysfs_emit(buf, hex ? "%#x\n" : "%u\n", value);
}

static ssize_t abi_version_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return perfctr_info_emit(buf, offsetof(struct perfctr_info, abi_version),
				 true);
}

static struct kobj_attribute abi_version_attr = __ATTR_RO(abi_version);

static ssize_t cpu_type_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	return perfctr_info_emit(buf, offsetof(struct perfctr_info, cpu_type),
				 false);
}

static struct kobj_attribute cpu_type_attr = __ATTR_RO(cpu_type);

static ssize_t cpu_features_show(struct kobject *kobj,
				 struct kobj_attribute *attr, char *buf)
{
	return perfctr_info_emit(buf, offsetof(struct perfctr_info, cpu_features),
				 true);
}

static struct kobj_attribute cpu_features_attr = __ATTR_RO(cpu_features);

static ssize_t cpu_khz_show(struct kobject *kobj,
			    struct kobj_attribute *attr, char *buf)
{
	return perfctr_info_emit(buf, offsetof(struct perfctr_info, cpu_khz),
				 false);
}

static struct kobj_attribute cpu_khz_attr = __ATTR_RO(cpu_khz);

static ssize_t tsc_to_cpu_mult_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	return perfctr_info_emit(buf, offsetof(struct perfctr_info, tsc_to_cpu_mult),
				 false);
}

static struct kobj_attribute tsc_to_cpu_mult_attr = __ATTR_RO(tsc_to_cpu_mult);

static ssize_t nrctrs_show(struct kobject *kobj,
			   struct kobj_attribute *attr, char *buf)
{
	return perfctr_info_emit(buf, offsetof(struct perfctr_info, nrctrs),
				 false);
}

static struct kobj_attribute nrctrs_attr = __ATTR_RO(nrctrs);

static ssize_t ctr_width_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return perfctr_info_emit(buf, offsetof(struct perfctr_info, ctr_width),
				 false);
}

static struct kobj_attribute ctr_width_attr = __ATTR_RO(ctr_width);

static ssize_t nrfixed_show(struct kobject *kobj,
			    struct kobj_attribute *attr, char *buf)
{
	return perfctr_info_emit(buf, offsetof(struct perfctr_info, nrfixed),
				 false);
}

static struct kobj_attribute nrfixed_attr = __ATTR_RO(nrfixed);

static ssize_t fixed_width_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return perfctr_info_emit(buf, offsetof(struct perfctr_info, fixed_width),
				 false);
}

static struct kobj_attribute fixed_width_attr = __ATTR_RO(fixed_width);

static ssize_t nrmetrics_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return perfctr_info_emit(buf, offsetof(struct perfctr_info, nrmetrics),
				 false);
}

static struct kobj_attribute nrmetrics_attr = __ATTR_RO(nrmetrics);

static ssize_t driver_version_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", PERFCTR_DRIVER_VERSION);
}

static struct kobj_attribute driver_version_attr = __ATTR_RO(driver_version);

static ssize_t driver_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", perfctr_driver(pmu)()->name);
}

static struct kobj_attribute driver_attr = __ATTR_RO(driver);

static struct attribute *perfctr_info_attrs[] = {
	&abi_version_attr.attr,
	&driver_version_attr.attr,
	&driver_attr.attr,
	&cpu_type_attr.attr,
	&cpu_features_attr.attr,
	&cpu_khz_attr.attr,
	&tsc_to_cpu_mult_attr.attr,
	&nrctrs_attr.attr,
	&ctr_width_attr.attr,
	&nrfixed_attr.attr,
	&fixed_width_attr.attr,
	&nrmetrics_attr.attr,
	NULL
};

static const struct attribute_group perfctr_info_group = {
	.attrs = perfctr_info_attrs,
};

static int __init perfctr_info_init(void)
{
	struct kobject *kobj = kobject_create_and_add("perfctr", kernel_kobj);

	if (!kobj)
		return -ENOMEM;
	return sysfs_create_group(kobj, &perfctr_info_group);
}
late_initcall(perfctr_info_init);
