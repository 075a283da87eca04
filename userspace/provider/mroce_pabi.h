/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libibverbs 44 private provider ABI (IBVERBS_PRIVATE_34), restated.
 *
 * rdma-core does not install its provider header (infiniband/driver.h), so
 * this header describes the part of that ABI the MetaRoCE provider uses:
 * the layouts libibverbs reads or writes by offset, and the prototypes of
 * the IBVERBS_PRIVATE_34 functions we call.  Every size and offset we rely
 * on is checked with _Static_assert (x86_64 LP64 values of the structures
 * in rdma-core v44.0's libibverbs/driver.h and kern-abi.h, which Debian does
 * not install).  The Makefile refuses to build against another libibverbs
 * version (MROCE_PABI_LIBIBVERBS below).
 */
#ifndef MROCE_PABI_H
#define MROCE_PABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

/* The libibverbs release this header describes (pkg-config modversion). */
#define MROCE_PABI_LIBIBVERBS	"1.14.44.0"
#define MROCE_PABI_VERSION	34

#if !defined(__x86_64__) || !defined(__LP64__)
#error "mroce_pabi.h describes the x86_64 LP64 layouts only"
#endif

#define MROCE_CHECK_SIZE(type, size) \
	_Static_assert(sizeof(type) == (size), "size of " #type)
#define MROCE_CHECK_OFF(type, field, off) \
	_Static_assert(offsetof(type, field) == (off), \
		       "offset of " #type "." #field)

struct mroce_list_node {
	struct mroce_list_node *next, *prev;
};

/* struct verbs_match_ent */
enum {
	MROCE_VERBS_MATCH_SENTINEL = 0,
	MROCE_VERBS_MATCH_PCI = 1,
	MROCE_VERBS_MATCH_MODALIAS = 2,
	MROCE_VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

struct verbs_sysfs_dev {
	struct mroce_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

struct verbs_device;

struct verbs_device_ops {
	const char *name;
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;
	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);
	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);
	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
	struct ibv_device device;	/* must be first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct mroce_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/* Private object wrappers. */
enum mroce_verbs_mr_type {
	MROCE_IBV_MR_TYPE_MR,
	MROCE_IBV_MR_TYPE_NULL_MR,
	MROCE_IBV_MR_TYPE_IMPORTED_MR,
	MROCE_IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum mroce_verbs_mr_type mr_type;
	int access;
};

struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

enum { MROCE_VERBS_QP_XRCD = 1, MROCE_VERBS_QP_EX = 2 };

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/* struct verbs_context_ops: 76 slots, alphabetical, read by offset. */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *attr);
	struct ibv_srq *(*create_srq_ex)(struct ibv_context *context,
					 struct ibv_srq_init_attr_ex *attr);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(
		struct ibv_context *context,
		struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/* kern-abi.h command wrappers: header, then the kernel's core struct. */
struct mroce_ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

#define MROCE_DECLARE_CMD(name, core)			\
	struct ibv_##name {				\
		struct ib_uverbs_cmd_hdr hdr;		\
		struct core core_payload;		\
	}
#define MROCE_DECLARE_CMD_EX(name, core)		\
	struct ibv_##name {				\
		struct mroce_ex_hdr hdr;		\
		struct core core_payload;		\
	}

MROCE_DECLARE_CMD(get_context, ib_uverbs_get_context);
MROCE_DECLARE_CMD(query_port, ib_uverbs_query_port);
MROCE_DECLARE_CMD(alloc_pd, ib_uverbs_alloc_pd);
MROCE_DECLARE_CMD(reg_mr, ib_uverbs_reg_mr);
MROCE_DECLARE_CMD(alloc_mw, ib_uverbs_alloc_mw);
MROCE_DECLARE_CMD(create_cq, ib_uverbs_create_cq);
MROCE_DECLARE_CMD(resize_cq, ib_uverbs_resize_cq);
MROCE_DECLARE_CMD(create_qp, ib_uverbs_create_qp);
MROCE_DECLARE_CMD(modify_qp, ib_uverbs_modify_qp);
MROCE_DECLARE_CMD(query_qp, ib_uverbs_query_qp);
MROCE_DECLARE_CMD(create_srq, ib_uverbs_create_srq);
MROCE_DECLARE_CMD(create_xsrq, ib_uverbs_create_xsrq);
MROCE_DECLARE_CMD(modify_srq, ib_uverbs_modify_srq);
MROCE_DECLARE_CMD(query_srq, ib_uverbs_query_srq);
MROCE_DECLARE_CMD_EX(create_cq_ex, ib_uverbs_ex_create_cq);
MROCE_DECLARE_CMD_EX(create_qp_ex, ib_uverbs_ex_create_qp);
MROCE_DECLARE_CMD_EX(modify_qp_ex, ib_uverbs_ex_modify_qp);

/* IBVERBS_PRIVATE_34 functions. */
void verbs_register_driver_34(const struct verbs_device_ops *ops);
/* As driver.h names it: the PABI version is part of the symbol. */
#define verbs_register_driver verbs_register_driver_34
void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);
void verbs_uninit_context(struct verbs_context *ctx);

int ibv_cmd_get_context(struct verbs_context *ctx, struct ibv_get_context *cmd,
			size_t cmd_size, struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *ctx,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *ctx, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *ctx, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
/* The ioctl UVERBS_METHOD_REG_DMABUF_MR; sets vmr->mr_type to DMABUF_MR. */
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_cq(struct ibv_context *ctx, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_cq_ex(struct ibv_context *ctx,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_req_notify_cq(struct ibv_cq *cq, int solicited_only);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_qp(struct ibv_pd *pd, struct ibv_qp *qp,
		      struct ibv_qp_init_attr *attr, struct ibv_create_qp *cmd,
		      size_t cmd_size, struct ib_uverbs_create_qp_resp *resp,
		      size_t resp_size);
int ibv_cmd_create_qp_ex2(struct ibv_context *ctx, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr_ex,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		     int attr_mask, struct ibv_qp_init_attr *init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);
int ibv_cmd_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *ctx, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

/*
 * Layout checks: x86_64 sizes and offsets of rdma-core v44.0's provider
 * structures (driver.h) and command structures (kern-abi.h).
 */
MROCE_CHECK_SIZE(struct mroce_list_node, 16);
MROCE_CHECK_SIZE(struct verbs_match_ent, 24);
MROCE_CHECK_OFF(struct verbs_match_ent, u, 8);
MROCE_CHECK_OFF(struct verbs_match_ent, vendor, 16);
MROCE_CHECK_OFF(struct verbs_match_ent, device, 18);
MROCE_CHECK_OFF(struct verbs_match_ent, kind, 20);
MROCE_CHECK_SIZE(struct verbs_sysfs_dev, 992);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, provider_data, 16);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, match, 24);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, flags, 32);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, sysfs_name, 36);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, sysfs_cdev, 104);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, ibdev_name, 112);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, ibdev_path, 176);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, modalias, 432);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, node_guid, 944);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, driver_id, 952);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, node_type, 956);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, ibdev_idx, 960);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, num_ports, 964);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, abi_ver, 968);
MROCE_CHECK_OFF(struct verbs_sysfs_dev, time_created, 976);
MROCE_CHECK_SIZE(struct verbs_device_ops, 72);
MROCE_CHECK_OFF(struct verbs_device_ops, match_min_abi_version, 8);
MROCE_CHECK_OFF(struct verbs_device_ops, match_max_abi_version, 12);
MROCE_CHECK_OFF(struct verbs_device_ops, match_table, 16);
MROCE_CHECK_OFF(struct verbs_device_ops, static_providers, 24);
MROCE_CHECK_OFF(struct verbs_device_ops, match_device, 32);
MROCE_CHECK_OFF(struct verbs_device_ops, alloc_context, 40);
MROCE_CHECK_OFF(struct verbs_device_ops, import_context, 48);
MROCE_CHECK_OFF(struct verbs_device_ops, alloc_device, 56);
MROCE_CHECK_OFF(struct verbs_device_ops, uninit_device, 64);
MROCE_CHECK_SIZE(struct ibv_device, 664);
MROCE_CHECK_SIZE(struct verbs_device, 712);
MROCE_CHECK_OFF(struct verbs_device, ops, 664);
MROCE_CHECK_OFF(struct verbs_device, refcount, 672);
MROCE_CHECK_OFF(struct verbs_device, entry, 680);
MROCE_CHECK_OFF(struct verbs_device, sysfs, 696);
MROCE_CHECK_OFF(struct verbs_device, core_support, 704);
MROCE_CHECK_SIZE(struct verbs_context, 648);
MROCE_CHECK_OFF(struct verbs_context, priv, 208);
MROCE_CHECK_OFF(struct verbs_context, context, 320);
MROCE_CHECK_SIZE(struct verbs_context_ops, 76 * 8);
MROCE_CHECK_OFF(struct verbs_context_ops, alloc_pd, 40);
MROCE_CHECK_OFF(struct verbs_context_ops, create_cq, 120);
MROCE_CHECK_OFF(struct verbs_context_ops, create_qp, 152);
MROCE_CHECK_OFF(struct verbs_context_ops, create_srq, 176);
MROCE_CHECK_OFF(struct verbs_context_ops, dereg_mr, 224);
MROCE_CHECK_OFF(struct verbs_context_ops, destroy_qp, 272);
MROCE_CHECK_OFF(struct verbs_context_ops, free_context, 312);
MROCE_CHECK_OFF(struct verbs_context_ops, get_srq_num, 328);
MROCE_CHECK_OFF(struct verbs_context_ops, modify_qp, 376);
MROCE_CHECK_OFF(struct verbs_context_ops, poll_cq, 424);
MROCE_CHECK_OFF(struct verbs_context_ops, post_send, 440);
MROCE_CHECK_OFF(struct verbs_context_ops, post_srq_recv, 456);
MROCE_CHECK_OFF(struct verbs_context_ops, query_device_ex, 464);
MROCE_CHECK_OFF(struct verbs_context_ops, query_port, 480);
MROCE_CHECK_OFF(struct verbs_context_ops, query_srq, 512);
MROCE_CHECK_OFF(struct verbs_context_ops, reg_dmabuf_mr, 536);
MROCE_CHECK_OFF(struct verbs_context_ops, reg_mr, 544);
MROCE_CHECK_OFF(struct verbs_context_ops, req_notify_cq, 552);
MROCE_CHECK_OFF(struct verbs_context_ops, resize_cq, 568);
MROCE_CHECK_OFF(struct verbs_context_ops, unimport_pd, 600);
MROCE_CHECK_SIZE(struct ibv_mr, 48);
MROCE_CHECK_SIZE(struct verbs_mr, 56);
MROCE_CHECK_OFF(struct verbs_mr, mr_type, 48);
MROCE_CHECK_OFF(struct verbs_mr, access, 52);
MROCE_CHECK_SIZE(struct verbs_xrcd, 16);
MROCE_CHECK_SIZE(struct verbs_qp, 368);
MROCE_CHECK_OFF(struct verbs_qp, comp_mask, 352);
MROCE_CHECK_OFF(struct verbs_qp, xrcd, 360);
MROCE_CHECK_SIZE(struct verbs_cq, 288);
MROCE_CHECK_SIZE(struct ibv_srq, 128);
MROCE_CHECK_SIZE(struct verbs_srq, 160);
MROCE_CHECK_OFF(struct verbs_srq, srq_type, 128);
MROCE_CHECK_OFF(struct verbs_srq, xrcd, 136);
MROCE_CHECK_OFF(struct verbs_srq, cq, 144);
MROCE_CHECK_OFF(struct verbs_srq, srq_num, 152);
MROCE_CHECK_SIZE(struct mroce_ex_hdr, 24);
MROCE_CHECK_SIZE(struct ibv_get_context, 16);
MROCE_CHECK_SIZE(struct ib_uverbs_get_context_resp, 8);
MROCE_CHECK_SIZE(struct ibv_query_port, 24);
MROCE_CHECK_SIZE(struct ibv_alloc_pd, 16);
MROCE_CHECK_SIZE(struct ib_uverbs_alloc_pd_resp, 4);
MROCE_CHECK_SIZE(struct ibv_reg_mr, 48);
MROCE_CHECK_SIZE(struct ibv_alloc_mw, 24);
MROCE_CHECK_SIZE(struct ib_uverbs_alloc_mw_resp, 8);
MROCE_CHECK_SIZE(struct ib_uverbs_reg_mr_resp, 12);
MROCE_CHECK_SIZE(struct ibv_create_cq, 40);
MROCE_CHECK_SIZE(struct ib_uverbs_create_cq_resp, 8);
MROCE_CHECK_SIZE(struct ibv_create_cq_ex, 56);
MROCE_CHECK_SIZE(struct ib_uverbs_ex_create_cq_resp, 16);
MROCE_CHECK_SIZE(struct ibv_resize_cq, 24);
MROCE_CHECK_SIZE(struct ib_uverbs_resize_cq_resp, 8);
MROCE_CHECK_SIZE(struct ibv_create_qp, 64);
MROCE_CHECK_SIZE(struct ib_uverbs_create_qp_resp, 32);
MROCE_CHECK_SIZE(struct ibv_create_qp_ex, 88);
MROCE_CHECK_SIZE(struct ib_uverbs_ex_create_qp_resp, 40);
MROCE_CHECK_SIZE(struct ibv_modify_qp, 120);
MROCE_CHECK_SIZE(struct ibv_modify_qp_ex, 144);
MROCE_CHECK_SIZE(struct ib_uverbs_ex_modify_qp_resp, 8);
MROCE_CHECK_SIZE(struct ibv_query_qp, 24);
MROCE_CHECK_SIZE(struct ibv_create_srq, 40);
MROCE_CHECK_SIZE(struct ibv_create_xsrq, 56);
MROCE_CHECK_SIZE(struct ib_uverbs_create_srq_resp, 16);
MROCE_CHECK_SIZE(struct ibv_modify_srq, 24);
MROCE_CHECK_SIZE(struct ibv_query_srq, 24);
MROCE_CHECK_SIZE(struct ib_uverbs_create_ah_resp, 4);
MROCE_CHECK_SIZE(struct ib_uverbs_ex_query_device_resp, 304);
MROCE_CHECK_SIZE(struct ibv_wc, 48);

#endif /* MROCE_PABI_H */
