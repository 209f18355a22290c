#include "config.h"
#include "base/system.h"

#include "base/error.h"
#include "import/backend.h"

int lr_backend_find(const struct lr_backend_ops **out, const char *name)
{
	if (!strcmp(name, "sim"))
		*out = &lr_backend_sim_ops;
	else if (!strcmp(name, "atom"))
		*out = &lr_backend_atom_ops;
	else {
		lr_error_set(LR_EINVAL, "unknown backend '%s'", name);
		lr_error_hint(
			"backends: sim (simulated device, the default) and atom (Rebellions ATOM through the RBLN runtime)");
		return LR_EINVAL;
	}
	return 0;
}
