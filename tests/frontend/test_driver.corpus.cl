
        import resource, threading
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
        import oclpy as cl
        ctx = cl.Context(dev_type=cl.device_type.CPU)
        threading.stack_size(1 << 20)
        errors = []
        def work(i):
            try:
                cl.Program(ctx, f"__kernel void k{i}(__global int *a) {{ a[0] = {i}; }}").build()
            except Exception as exc:
                errors.append(str(exc))
        threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(len(errors), errors[:1])
    