/* sl_errno.h - Slurm's error codes (same numbers and texts as Slurm 22.05).
 *
 * Functions return 0 or a negative code from one number space: -errno
 * values below 1000 and these codes (negated) from 1000 up (docs/style.md R8).
 * sl_strerror() takes the positive or the negative form.
 *
 * SL_ERRNO_LIST is the one table: the enum below and the message table in
 * sl_errno.c are both generated from it, so a code cannot lack a text.
 * Keep it sorted by number; numbers are Slurm's (slurm/slurm_errno.h),
 * including its gaps, because they travel in RESPONSE_SLURM_RC.
 * Only codes whose 22.05 number and text are certain are listed; add more
 * here when a caller needs one.
 */
#pragma once

/* X(name, number, text) */
#define SL_ERRNO_LIST(X)                                                                           \
	/* general message errors */                                                               \
	X(SLURM_UNEXPECTED_MSG_ERROR, 1000, "Unexpected message received")                         \
	X(SLURM_COMMUNICATIONS_CONNECTION_ERROR, 1001, "Communication connection failure")         \
	X(SLURM_COMMUNICATIONS_SEND_ERROR, 1002, "Message send failure")                           \
	X(SLURM_COMMUNICATIONS_RECEIVE_ERROR, 1003, "Message receive failure")                     \
	X(SLURM_COMMUNICATIONS_SHUTDOWN_ERROR, 1004, "Communication shutdown failure")             \
	X(SLURM_PROTOCOL_VERSION_ERROR, 1005, "Incompatible versions of client and server code")   \
	X(SLURM_PROTOCOL_IO_STREAM_VERSION_ERROR, 1006, "I/O stream version number error")         \
	X(SLURM_PROTOCOL_AUTHENTICATION_ERROR, 1007, "Protocol authentication error")              \
	X(SLURM_PROTOCOL_INSANE_MSG_LENGTH, 1008, "Insane message length")                         \
	X(SLURM_MPI_PLUGIN_NAME_INVALID, 1009, "Invalid MPI plugin name")                          \
	X(SLURM_MPI_PLUGIN_PRELAUNCH_SETUP_FAILED, 1010, "MPI plugin's pre-launch setup failed")   \
	X(SLURM_PLUGIN_NAME_INVALID, 1011, "Plugin initialization failed")                         \
	X(SLURM_UNKNOWN_FORWARD_ADDR, 1012, "Can't find an address, check slurm.conf")             \
	/* communication failures to/from slurmctld */                                             \
	X(SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR, 1800,                                         \
	  "Unable to contact slurm controller (connect failure)")                                  \
	X(SLURMCTLD_COMMUNICATIONS_SEND_ERROR, 1801,                                               \
	  "Unable to contact slurm controller (send failure)")                                     \
	X(SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR, 1802,                                            \
	  "Unable to contact slurm controller (receive failure)")                                  \
	X(SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR, 1803,                                           \
	  "Unable to contact slurm controller (shutdown failure)")                                 \
	/* not really an error: RESPONSE_SLURM_RC of an unchanged *_info request */                \
	X(SLURM_NO_CHANGE_IN_DATA, 1900, "Data has not changed since time specified")              \
	/* slurmctld */                                                                            \
	X(ESLURM_INVALID_PARTITION_NAME, 2000, "Invalid partition name specified")                 \
	X(ESLURM_DEFAULT_PARTITION_NOT_SET, 2001,                                                  \
	  "No partition specified or system default partition")                                    \
	X(ESLURM_ACCESS_DENIED, 2002, "Access/permission denied")                                  \
	X(ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP, 2003,                                       \
	  "User's group not permitted to use this partition")                                      \
	X(ESLURM_REQUESTED_NODES_NOT_IN_PARTITION, 2004, "Requested nodes not in this partition")  \
	X(ESLURM_TOO_MANY_REQUESTED_CPUS, 2005, "More processors requested than permitted")        \
	X(ESLURM_INVALID_NODE_COUNT, 2006, "Node count specification invalid")                     \
	X(ESLURM_ERROR_ON_DESC_TO_RECORD_COPY, 2007, "Unable to create job record, try again")     \
	X(ESLURM_JOB_MISSING_SIZE_SPECIFICATION, 2008,                                             \
	  "Job size specification needs to be provided")                                           \
	X(ESLURM_JOB_SCRIPT_MISSING, 2009, "Job script not specified")                             \
	X(ESLURM_USER_ID_MISSING, 2010, "Invalid user id")                                         \
	X(ESLURM_DUPLICATE_JOB_ID, 2011, "Duplicate job id")                                       \
	X(ESLURM_PATHNAME_TOO_LONG, 2012,                                                          \
	  "Pathname of a file, directory or other parameter too long")                             \
	X(ESLURM_NOT_TOP_PRIORITY, 2013, "Immediate execution impossible, insufficient priority")  \
	X(ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, 2014,                                          \
	  "Requested node configuration is not available")                                         \
	X(ESLURM_REQUESTED_PART_CONFIG_UNAVAILABLE, 2015,                                          \
	  "Requested partition configuration not available now")                                   \
	X(ESLURM_NODES_BUSY, 2016, "Requested nodes are busy")                                     \
	X(ESLURM_INVALID_JOB_ID, 2017, "Invalid job id specified")                                 \
	X(ESLURM_INVALID_NODE_NAME, 2018, "Invalid node name specified")                           \
	X(ESLURM_WRITING_TO_FILE, 2019, "I/O error writing script/environment to file")            \
	X(ESLURM_TRANSITION_STATE_NO_UPDATE, 2020, "Job can not be altered now, try again later")  \
	X(ESLURM_ALREADY_DONE, 2021, "Job/step already completing or completed")                   \
	X(ESLURM_INTERCONNECT_FAILURE, 2022, "Error configuring interconnect")                     \
	X(ESLURM_BAD_DIST, 2023, "Task distribution specification invalid")                        \
	X(ESLURM_JOB_PENDING, 2024, "Job is pending execution")                                    \
	X(ESLURM_BAD_TASK_COUNT, 2025, "Task count specification invalid")                         \
	X(ESLURM_INVALID_JOB_CREDENTIAL, 2026, "Error generating job credential")                  \
	X(ESLURM_IN_STANDBY_MODE, 2027, "Slurm backup controller in standby mode")                 \
	X(ESLURM_INVALID_NODE_STATE, 2028, "Invalid node state specified")                         \
	X(ESLURM_INVALID_FEATURE, 2029, "Invalid feature specification")                           \
	X(ESLURM_INVALID_AUTHTYPE_CHANGE, 2030,                                                    \
	  "AuthType change requires restart of all Slurm daemons and commands to take effect")     \
	X(ESLURM_ACTIVE_FEATURE_NOT_SUBSET, 2031,                                                  \
	  "Active features not subset of available features")                                      \
	X(ESLURM_INVALID_SCHEDTYPE_CHANGE, 2032,                                                   \
	  "SchedulerType change requires restart of the slurmctld daemon to take effect")          \
	X(ESLURM_INVALID_SELECTTYPE_CHANGE, 2033,                                                  \
	  "SelectType change requires restart of the slurmctld daemon to take effect")             \
	X(ESLURM_INVALID_SWITCHTYPE_CHANGE, 2034,                                                  \
	  "SwitchType change requires restart of all Slurm daemons and jobs to take effect")       \
	X(ESLURM_FRAGMENTATION, 2035,                                                              \
	  "Immediate execution impossible, resources too fragmented for allocation")               \
	X(ESLURM_NOT_SUPPORTED, 2036, "Requested operation not supported on this system")          \
	X(ESLURM_DISABLED, 2037, "Requested operation is presently disabled")                      \
	X(ESLURM_DEPENDENCY, 2038, "Job dependency problem")                                       \
	X(ESLURM_BATCH_ONLY, 2039, "Only batch jobs are accepted or processed")                    \
	X(ESLURM_LICENSES_UNAVAILABLE, 2040, "Licenses currently unavailable")                     \
	X(ESLURM_JOB_HELD, 2042, "Job is in held state, pending scheduler release")                \
	X(ESLURM_INVALID_TASK_MEMORY, 2044, "Memory required by task is not available")            \
	X(ESLURM_INVALID_ACCOUNT, 2045,                                                            \
	  "Invalid account or account/partition combination specified")                            \
	X(ESLURM_INVALID_PARENT_ACCOUNT, 2046, "Invalid parent account specified")                 \
	X(ESLURM_SAME_PARENT_ACCOUNT, 2047, "Account already child of parent account specified")   \
	X(ESLURM_INVALID_LICENSES, 2048, "Invalid license specification")                          \
	X(ESLURM_NEED_RESTART, 2049,                                                               \
	  "The node configuration changes that were made require restart of the slurmctld "        \
	  "daemon to take effect")                                                                 \
	X(ESLURM_ACCOUNTING_POLICY, 2050,                                                          \
	  "Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)") \
	X(ESLURM_INVALID_TIME_LIMIT, 2051,                                                         \
	  "Requested time limit is invalid (missing or exceeds some limit)")                       \
	X(ESLURM_RESERVATION_ACCESS, 2052, "Access denied to requested reservation")               \
	X(ESLURM_RESERVATION_INVALID, 2053, "Requested reservation is invalid")                    \
	X(ESLURM_INVALID_TIME_VALUE, 2054, "Invalid time specified")                               \
	X(ESLURM_RESERVATION_BUSY, 2055, "Requested reservation is in use")                        \
	X(ESLURM_RESERVATION_NOT_USABLE, 2056, "Requested reservation not usable now")             \
	X(ESLURM_INVALID_WCKEY, 2057, "Invalid wckey specification")                               \
	X(ESLURM_RESERVATION_OVERLAP, 2058,                                                        \
	  "Requested reservation overlaps with another reservation")                               \
	X(ESLURM_PORTS_BUSY, 2059, "Required ports are in use")                                    \
	X(ESLURM_PORTS_INVALID, 2060, "Requires more ports than can be reserved")                  \
	X(ESLURM_PROLOG_RUNNING, 2061, "PrologSlurmctld is still running")                         \
	X(ESLURM_NO_STEPS, 2062, "Job steps can not be run on this cluster")                       \
	X(ESLURM_INVALID_QOS, 2066, "Invalid qos specification")                                   \
	X(ESLURM_QOS_PREEMPTION_LOOP, 2067, "QOS Preemption loop detected")                        \
	X(ESLURM_NODE_NOT_AVAIL, 2068, "Required node not available (down, drained or reserved)")  \
	X(ESLURM_INVALID_CPU_COUNT, 2069, "CPU count specification invalid")                       \
	X(ESLURM_PARTITION_NOT_AVAIL, 2070,                                                        \
	  "Required partition not available (inactive or drain)")                                  \
	X(ESLURM_CIRCULAR_DEPENDENCY, 2071, "Circular job dependency")                             \
	X(ESLURM_INVALID_GRES, 2072, "Invalid generic resource (gres) specification")              \
	X(ESLURM_JOB_NOT_PENDING, 2073, "Job is no longer pending execution")                      \
	X(ESLURM_QOS_THRES, 2074, "Requested account has breached requested QOS usage threshold")  \
	X(ESLURM_PARTITION_IN_USE, 2075, "Partition is in use")                                    \
	X(ESLURM_STEP_LIMIT, 2076, "Step limit reached for this job")                              \
	X(ESLURM_JOB_SUSPENDED, 2077, "Job is current suspended, requested operation disabled")    \
	X(ESLURM_CAN_NOT_START_IMMEDIATELY, 2078, "Job can not start immediately")                 \
	X(ESLURM_INTERCONNECT_BUSY, 2079, "Switch resources currently not available")              \
	X(ESLURM_RESERVATION_EMPTY, 2080, "Reservation request lacks users, groups or accounts")   \
	X(ESLURM_INVALID_ARRAY, 2081, "Invalid job array specification")                           \
	X(ESLURM_RESERVATION_NAME_DUP, 2082, "Duplicate reservation name")                         \
	X(ESLURM_JOB_STARTED, 2083, "Job has already started")                                     \
	X(ESLURM_JOB_FINISHED, 2084, "Job has already finished")                                   \
	X(ESLURM_JOB_NOT_RUNNING, 2085, "Job is not running")                                      \
	X(ESLURM_JOB_NOT_PENDING_NOR_RUNNING, 2086, "Job is not pending nor running")              \
	X(ESLURM_JOB_NOT_SUSPENDED, 2087, "Job is not suspended")                                  \
	X(ESLURM_JOB_NOT_FINISHED, 2088, "Job is not finished")                                    \
	X(ESLURM_TRIGGER_DUP, 2089, "Duplicate event trigger")                                     \
	X(ESLURM_INTERNAL, 2090, "Slurm internal error, contact system administrator")             \
	X(ESLURM_INVALID_BURST_BUFFER_CHANGE, 2091,                                                \
	  "BurstBufferType change requires restart of slurmctld daemon to take effect")            \
	X(ESLURM_BURST_BUFFER_PERMISSION, 2092, "Burst Buffer permission denied")                  \
	X(ESLURM_BURST_BUFFER_LIMIT, 2093, "Burst Buffer resource limit exceeded")                 \
	X(ESLURM_INVALID_BURST_BUFFER_REQUEST, 2094, "Burst Buffer request invalid")               \
	X(ESLURM_PRIO_RESET_FAIL, 2095,                                                            \
	  "Changes to job priority are not persistent, change nice instead")                       \
	X(ESLURM_CANNOT_MODIFY_CRON_JOB, 2096, "Cannot modify scrontab jobs through scontrol")     \
	X(ESLURM_INVALID_JOB_CONTAINER_CHANGE, 2097,                                               \
	  "JobContainerType change requires restart of all Slurm daemons and commands to take "    \
	  "effect")                                                                                \
	X(ESLURM_CANNOT_CANCEL_CRON_JOB, 2098, "Cannot cancel scrontab jobs without --cron flag.") \
	X(ESLURM_INVALID_MCS_LABEL, 2099, "Invalid mcs_label specified")                           \
	X(ESLURM_BURST_BUFFER_WAIT, 2100, "Waiting for burst buffer")                              \
	X(ESLURM_PARTITION_DOWN, 2101, "Partition in DOWN state")                                  \
	X(ESLURM_DUPLICATE_GRES, 2102, "Duplicate generic resource (gres) specification")          \
	X(ESLURM_JOB_SETTING_DB_INX, 2103,                                                         \
	  "Job update not available right now, the DB index is being set, try again in a bit")     \
	X(ESLURM_RSV_ALREADY_STARTED, 2104, "Reservation already started")                         \
	X(ESLURM_SUBMISSIONS_DISABLED, 2105, "System submissions disabled")                        \
	X(ESLURM_NOT_HET_JOB, 2106, "Job not heterogeneous job")                                   \
	X(ESLURM_NOT_HET_JOB_LEADER, 2107, "Job not heterogeneous job leader")                     \
	X(ESLURM_NOT_WHOLE_HET_JOB, 2108,                                                          \
	  "Operation not permitted on individual component of heterogeneous job")                  \
	X(ESLURM_CORE_RESERVATION_UPDATE, 2109, "Core-based reservation can not be updated")       \
	X(ESLURM_DUPLICATE_STEP_ID, 2110, "Duplicate job step id")                                 \
	X(ESLURM_INVALID_CORE_CNT, 2111,                                                           \
	  "Core count for reservation node list is not consistent!")                               \
	X(ESLURM_X11_NOT_AVAIL, 2112, "X11 forwarding not available")                              \
	X(ESLURM_GROUP_ID_MISSING, 2113, "Invalid group id")                                       \
	X(ESLURM_BATCH_CONSTRAINT, 2114,                                                           \
	  "Job --batch option is invalid or not a subset of --constraints")                        \
	X(ESLURM_INVALID_TRES, 2115, "Invalid Trackable RESource (TRES) specification")            \
	X(ESLURM_INVALID_TRES_BILLING_WEIGHTS, 2116, "Invalid TRESBillingWeights specification")   \
	X(ESLURM_INVALID_JOB_DEFAULTS, 2117, "Invalid JobDefaults specification")                  \
	X(ESLURM_RESERVATION_MAINT, 2118, "Job can not start due to maintenance reservation.")     \
	X(ESLURM_INVALID_GRES_TYPE, 2119,                                                          \
	  "Invalid GRES specification (with and without type identification)")                     \
	X(ESLURM_REBOOT_IN_PROGRESS, 2120, "Reboot already in progress")                           \
	X(ESLURM_MULTI_KNL_CONSTRAINT, 2121,                                                       \
	  "Multiple KNL NUMA and/or MCDRAM constraints require use of a heterogeneous job")        \
	X(ESLURM_UNSUPPORTED_GRES, 2122,                                                           \
	  "Requested GRES option unsupported by configured SelectType plugin")                     \
	X(ESLURM_INVALID_NICE, 2123, "Invalid --nice value")                                       \
	X(ESLURM_INVALID_TIME_MIN_LIMIT, 2124,                                                     \
	  "Invalid time-min specification (exceeds job's time or other limits)")                   \
	X(ESLURM_DEFER, 2125,                                                                      \
	  "Immediate execution impossible. Individual job submission scheduling attempts "         \
	  "deferred")                                                                              \
	X(ESLURM_CONFIGLESS_DISABLED, 2126, "ConfigLess mode is disabled in slurm configuration.") \
	X(ESLURM_ENVIRONMENT_MISSING, 2127, "Environment is missing in job")                       \
	X(ESLURM_RESERVATION_NO_SKIP, 2128,                                                        \
	  "Reservation given is not skipable, try deleting instead")                               \
	X(ESLURM_RESERVATION_USER_GROUP, 2129,                                                     \
	  "Reservations can't have users and groups specified, only one or the other")             \
	X(ESLURM_PARTITION_ASSOC, 2130,                                                            \
	  "Multiple partition job request not supported when a partition is set in the "           \
	  "association")                                                                           \
	X(ESLURM_IN_STANDBY_USE_BACKUP, 2131,                                                      \
	  "Controller is in standby mode, try a different controller")                             \
	X(ESLURM_BAD_THREAD_PER_CORE, 2132,                                                        \
	  "Cannot request more threads per core than the job allocation")                          \
	X(ESLURM_INVALID_PREFER, 2133, "Invalid preferred feature specification")                  \
	/* slurmd */                                                                               \
	X(ESLURMD_KILL_TASK_FAILED, 4001, "Kill task failed")                                      \
	X(ESLURMD_INVALID_ACCT_FREQ, 4003, "Invalid accounting frequency requested")               \
	X(ESLURMD_INVALID_JOB_CREDENTIAL, 4004, "Invalid job credential")                          \
	X(ESLURMD_CREDENTIAL_EXPIRED, 4007, "Job credential expired")                              \
	X(ESLURMD_CREDENTIAL_REVOKED, 4008, "Job credential revoked")                              \
	X(ESLURMD_CREDENTIAL_REPLAYED, 4009, "Job credential replayed")                            \
	X(ESLURMD_CREATE_BATCH_DIR_ERROR, 4010,                                                    \
	  "Slurmd could not create a batch directory or file")                                     \
	X(ESLURMD_SETUP_ENVIRONMENT_ERROR, 4014,                                                   \
	  "Slurmd could not set up environment for batch job")                                     \
	X(ESLURMD_SET_UID_OR_GID_ERROR, 4016, "Slurmd could not set UID or GID")                   \
	X(ESLURMD_EXECVE_FAILED, 4020, "Slurmd could not execve job")                              \
	X(ESLURMD_IO_ERROR, 4021, "Slurmd could not connect IO")                                   \
	X(ESLURMD_PROLOG_FAILED, 4022, "Job prolog failed")                                        \
	X(ESLURMD_EPILOG_FAILED, 4023, "Job epilog failed")                                        \
	X(ESLURMD_TOOMANYSTEPS, 4025, "Too many job steps on node")                                \
	X(ESLURMD_STEP_EXISTS, 4026, "Job step already exists")                                    \
	X(ESLURMD_JOB_NOTRUNNING, 4027, "Job step not running")                                    \
	X(ESLURMD_STEP_SUSPENDED, 4028, "Job step is suspended")                                   \
	X(ESLURMD_STEP_NOTSUSPENDED, 4029, "Job step is not currently suspended")                  \
	X(ESLURMD_INVALID_SOCKET_NAME_LEN, 4030, "Unix socket name exceeded maximum length")       \
	/* socket-level communication */                                                           \
	X(ESLURM_PROTOCOL_INCOMPLETE_PACKET, 5003, "Header lengths are longer than data received") \
	X(SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT, 5004, "Socket timed out on send/recv operation")     \
	X(SLURM_PROTOCOL_SOCKET_ZERO_BYTES_SENT, 5005, "Zero Bytes were transmitted or received")  \
	/* authentication */                                                                       \
	X(ESLURM_AUTH_CRED_INVALID, 6000, "Invalid authentication credential")                     \
	X(ESLURM_AUTH_NET_ERROR, 6002, "Failed to connect to authentication agent")                \
	X(ESLURM_AUTH_BADARG, 6004, "Bad argument to plugin function")                             \
	X(ESLURM_AUTH_UNPACK, 6007, "Cannot unpack credential")                                    \
	/* accounting */                                                                           \
	X(ESLURM_DB_CONNECTION, 7000, "Unable to connect to database")                             \
	X(ESLURM_JOBS_RUNNING_ON_ASSOC, 7001, "Job(s) active, cancel job(s) before remove")        \
	/* plugins */                                                                              \
	X(ESLURM_MISSING_TIME_LIMIT, 8000, "Time limit specification required, but not provided") \
	/* slurmrestd */                                                                           \
	X(ESLURM_REST_INVALID_QUERY, 9000, "Query empty or not RFC7320 compliant")                 \
	X(ESLURM_REST_FAIL_PARSING, 9001, "Failure during parsing")                                \
	X(ESLURM_REST_INVALID_JOBS_DESC, 9002,                                                     \
	  "Jobs description entry not found, empty or not dictionary or list")                     \
	X(ESLURM_REST_EMPTY_RESULT, 9003, "Nothing found with query")                              \
	X(ESLURM_DATA_TOO_LARGE, 9205, "Data too large")                                           \
	/* ours: REQUEST_JOB_WAIT's caps (limits.h SL_WAIT_*) */                                    \
	X(ESLURM_WAIT_LIMIT, 9206, "Too many job waits at once, try again later")             \
	/* ours: SLURM_ERROR (-1) as a refusal's code (job_submit.lua returned                  \
	 * slurm.ERROR, or failed): Slurm sends -1, which the wire's positive                   \
	 * codes cannot carry; Slurm's text for it */                                            \
	X(ESLURM_UNSPECIFIED, 9207, "Unspecified error")

#define SL_ERRNO_ENUM_(name, num, text) name = num,
enum sl_errno {
	SL_ERRNO_LIST(SL_ERRNO_ENUM_)
	/* Our older name for 1008, kept for pack.c: an unpack that runs out of
	 * bytes or exceeds a cap reports what Slurm reports for that case. */
	SLURM_PROTOCOL_INSUFFICIENT_SPACE = SLURM_PROTOCOL_INSANE_MSG_LENGTH,
};
#undef SL_ERRNO_ENUM_

/* Text for a code, positive or negative: 0 gives "No error" (Slurm's
 * SLURM_SUCCESS text), 1..999 strerror(), listed codes their Slurm text.
 * Never NULL. Anything else gives "Unknown error N" with N positive, in a
 * thread-local buffer that the next call from the same thread overwrites;
 * all other results are static. */
const char *sl_strerror(int code);

/* Exposed for unit testing only: every code in the table, in order. */
extern const int sl_errno_codes[];
extern const unsigned sl_errno_codes_len;
