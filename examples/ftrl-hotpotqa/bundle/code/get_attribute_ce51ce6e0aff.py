ANSWERS = {"step 1.2 of \"Are Random House Tower and 888 7th Avenue both used for real estate?\"":"no"}

def get_attribute_ce51ce6e0aff(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
